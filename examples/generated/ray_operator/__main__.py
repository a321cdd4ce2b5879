# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""`python -m ray_operator` runs the manager."""

from ray_operator.main import main

if __name__ == "__main__":
    main()
