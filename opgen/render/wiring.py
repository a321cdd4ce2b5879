"""What opgen keeps between the scaffold markers of user-owned files.

Every region is computed from the PROJECT file alone, so `create api`,
`create webhook` and `delete api` only change PROJECT and recompute the
regions: wiring and unwiring are the same operation, and re-running it
changes nothing. Each webhook module and its test have regions too (the
imports of the kinds, the handlers `setup` registers).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

import yaml

from opgen.project.config import Project, Resource
from opgen.project.layout import Layout
from opgen.render.templating import format_python_lines
from opgen.render.views import WebhookView, resource_view, webhook_view
from opgen.write.regions import Region

MAIN_IMPORTS = "imports"
MAIN_CONTROLLERS = "controllers"
MAIN_WEBHOOKS = "webhooks"
DEFAULT_CRD = "crd"
DEFAULT_WEBHOOK = "webhook"
DEFAULT_WEBHOOK_PATCH = "webhook-patch"
DEFAULT_WEBHOOK_REPLACEMENTS = "webhook-replacements"
CRD_BASES = "crd-bases"
CRD_CONFIGURATIONS = "crd-configurations"
RBAC_KIND_ROLES = "kind-roles"
SAMPLES = "samples"
NETWORK_POLICIES = "network-policies"
WEBHOOK_IMPORTS = "imports"
WEBHOOK_SETUP = "setup"

WEBHOOK_REGIONS = frozenset(
    {
        MAIN_WEBHOOKS,
        DEFAULT_WEBHOOK,
        DEFAULT_WEBHOOK_PATCH,
        DEFAULT_WEBHOOK_REPLACEMENTS,
        CRD_CONFIGURATIONS,
        NETWORK_POLICIES,
    }
)
"""Regions that came with webhooks: a project that has none may lack their
markers (it was made before them), and is not asked for them until it does."""

CONTROLLER_INDENT = "    "
NETWORK_POLICY_KUSTOMIZATION = PurePosixPath("config/network-policy/kustomization.yaml")


def _items(paths: list[str]) -> str:
    return "".join(f"- {path}\n" for path in paths)


def regions(project: Project) -> dict[PurePosixPath, tuple[Region, ...]]:
    """Every injected file of the project and the regions opgen keeps in it."""
    layout = Layout(project)
    with_controller = [r for r in project.resources if r.controller]
    with_api = [r for r in project.resources if r.api]

    # Versions of one kind share its controller, CRD file and helper roles:
    # each is wired once.
    views = sorted(
        {
            (v.controller_module, v.reconciler): v
            for v in (resource_view(project, r) for r in with_controller)
        }.values(),
        key=lambda v: v.controller_module,
    )
    hooks = [webhook_view(project, r) for r in project.resources if r.webhooks]
    imports = _import_lines(
        [(v.controller_module, f"import {v.reconciler}") for v in views]
        + [
            (package, f"import {module} as {hook.main_alias}")
            for hook in hooks
            for package, module in [hook.module.rsplit(".", 1)]
        ]
    )
    imports_text = format_python_lines(imports) + ("\n" if imports else "")
    setups = "".join(f"{v.reconciler}(manager.client).setup(manager)\n" for v in views)
    controllers_text = format_python_lines(setups, CONTROLLER_INDENT)
    webhook_setups = "".join(f"{hook.main_alias}.setup(manager)\n" for hook in hooks)

    crd_bases = sorted(
        {str(layout.crd_file(r).relative_to("config/crd")) for r in with_api}
    )
    roles = sorted(
        {
            str(path.relative_to("config/rbac"))
            for r in with_api
            for path in layout.role_files(r)
        }
    )
    samples = sorted(
        str(layout.sample_file(r).relative_to("config/samples")) for r in with_api
    )
    has_webhooks = bool(hooks)
    converting = sorted(
        f"{r.plural}.{r.api_group}"
        for r in project.resources
        if r.webhooks is not None and r.webhooks.conversion
    )
    found = {
        layout.main_file: (
            Region(MAIN_IMPORTS, imports_text),
            Region(MAIN_CONTROLLERS, controllers_text),
            Region(
                MAIN_WEBHOOKS, format_python_lines(webhook_setups, CONTROLLER_INDENT)
            ),
        ),
        PurePosixPath("config/default/kustomization.yaml"): (
            Region(DEFAULT_CRD, _items(["../crd"] if with_api else [])),
            Region(
                DEFAULT_WEBHOOK,
                _items(["../webhook", "../certmanager"] if has_webhooks else []),
            ),
            Region(
                DEFAULT_WEBHOOK_PATCH,
                (
                    "- path: manager_webhook_patch.yaml\n  target:\n    kind: Deployment\n"
                    if has_webhooks
                    else ""
                ),
            ),
            Region(
                DEFAULT_WEBHOOK_REPLACEMENTS,
                _replacements(hooks, converting) if has_webhooks else "",
            ),
        ),
        PurePosixPath("config/crd/kustomization.yaml"): (
            Region(CRD_BASES, _items(crd_bases)),
            Region(
                CRD_CONFIGURATIONS,
                "configurations:\n- kustomizeconfig.yaml\n" if converting else "",
            ),
        ),
        NETWORK_POLICY_KUSTOMIZATION: (
            Region(
                NETWORK_POLICIES,
                _items(["allow-webhook-traffic.yaml"] if has_webhooks else []),
            ),
        ),
        PurePosixPath("config/rbac/kustomization.yaml"): (
            Region(RBAC_KIND_ROLES, _items(roles)),
        ),
        PurePosixPath("config/samples/kustomization.yaml"): (
            Region(SAMPLES, _items(samples)),
        ),
    }
    for resource in project.resources:
        if resource.webhooks is not None:
            found.update(_webhook_regions(project, resource))
    return found


def _import_lines(imports: list[tuple[str, str]]) -> str:
    """`from <module> <rest>` lines sorted by module, as isort orders them."""
    return "".join(f"from {module} {rest}\n" for module, rest in sorted(imports))


def _webhook_regions(
    project: Project, resource: Resource
) -> dict[PurePosixPath, tuple[Region, ...]]:
    """The regions of one version's webhook module and of its test."""
    layout = Layout(project)
    hook = webhook_view(project, resource)
    kinds = [(hook.types_module, f"import {hook.kind}")] + [
        (package, f"import {module} as {spoke.alias}")
        for spoke in hook.spokes
        for package, module in [spoke.types_module.rsplit(".", 1)]
    ]
    handlers = _handlers(hook)
    admission = (hook.defaulter, hook.validator)
    # Admission handlers get the manager's client, as reconcilers do, for rules
    # that read other objects; a converter sees one object and needs none.
    registrations = "".join(
        (
            f"manager.webhooks.add({name}(manager.client))\n"
            if name in admission
            else f"manager.webhooks.add({name}())\n"
        )
        for name in handlers
    )
    # The tests call every handler (the conversion tests through
    # opgen.testing.assert_round_trips) besides going through the API server.
    called = sorted(handlers)
    tested = [(hook.module, f"import {', '.join(called)}")] if called else []
    return {
        layout.webhook_file(resource): (
            Region(WEBHOOK_IMPORTS, format_python_lines(_import_lines(kinds)) + "\n"),
            Region(
                WEBHOOK_SETUP, format_python_lines(registrations, CONTROLLER_INDENT)
            ),
        ),
        layout.webhook_test(resource): (
            Region(
                WEBHOOK_IMPORTS,
                format_python_lines(_import_lines(kinds + tested)) + "\n",
            ),
        ),
    }


def _handlers(hook: WebhookView) -> list[str]:
    """The handler classes of one webhook module, in the order they are registered."""
    names = [hook.defaulter] * hook.defaulting + [hook.validator] * hook.validation
    return names + [spoke.converter for spoke in hook.spokes]


def _replacements(hooks: list[WebhookView], converting: list[str]) -> str:
    """config/default's `replacements:` for cert-manager, for the webhooks there are."""

    def certificate() -> dict[str, Any]:
        return {
            "kind": "Certificate",
            "group": "cert-manager.io",
            "version": "v1",
            "name": "serving-cert",
        }

    def annotated() -> list[dict[str, Any]]:
        kinds = [
            kind
            for kind, present in (
                ("MutatingWebhookConfiguration", any(h.defaulting for h in hooks)),
                ("ValidatingWebhookConfiguration", any(h.validation for h in hooks)),
            )
            if present
        ]
        return [{"kind": kind} for kind in kinds] + [
            {"kind": "CustomResourceDefinition", "name": name} for name in converting
        ]

    def service(field: str, index: int) -> dict[str, Any]:
        return {
            "source": {
                "kind": "Service",
                "version": "v1",
                "name": "webhook-service",
                "fieldPath": f".metadata.{field}",
            },
            "targets": [
                {
                    "select": certificate(),
                    "fieldPaths": [".spec.dnsNames.0", ".spec.dnsNames.1"],
                    "options": {"delimiter": ".", "index": index, "create": True},
                }
            ],
        }

    def ca_from(field: str, index: int) -> dict[str, Any]:
        return {
            "source": {**certificate(), "fieldPath": f".metadata.{field}"},
            "targets": [
                {
                    "select": select,
                    "fieldPaths": [
                        ".metadata.annotations.[cert-manager.io/inject-ca-from]"
                    ],
                    "options": {"delimiter": "/", "index": index, "create": True},
                }
                for select in annotated()
            ],
        }

    blocks = [service("name", 0), service("namespace", 1)]
    if annotated():
        blocks += [ca_from("namespace", 0), ca_from("name", 1)]
    return yaml.safe_dump(
        {"replacements": blocks}, sort_keys=False, default_flow_style=False, width=1000
    )
