"""The Debian mirror for trixie's etcd-server is read from the machine's apt sources."""

from __future__ import annotations

from opgen.testing.binaries.etcd_source import debian_mirror

DEB822 = """\
Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
"""


def test_deb822_sources_give_the_archive_mirror() -> None:
    assert debian_mirror([DEB822]) == "http://deb.debian.org/debian"


def test_a_security_only_stanza_is_not_the_archive() -> None:
    security_first = DEB822.split("\n\n")[1] + "\n\n" + DEB822.split("\n\n")[0]
    assert debian_mirror([security_first]) == "http://deb.debian.org/debian"
    assert debian_mirror([DEB822.split("\n\n")[1]]) is None


def test_one_line_sources_with_options() -> None:
    text = (
        "# comment\n"
        "deb-src http://ftp.de.debian.org/debian bookworm main\n"
        "deb http://security.debian.org/debian-security bookworm-security main\n"
        "deb [arch=amd64 signed-by=/usr/share/keyrings/x.gpg] http://ftp.de.debian.org/debian/ bookworm main\n"
    )
    assert debian_mirror([text]) == "http://ftp.de.debian.org/debian"


def test_non_debian_sources_give_none() -> None:
    ubuntu = "deb http://archive.ubuntu.com/ubuntu noble main\n"
    assert debian_mirror([ubuntu, ""]) is None
