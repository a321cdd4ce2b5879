"""The resources `@op.rbac` markers name, checked against those that exist.

A typo in a resource (`deploymnets`) or a group (`app`) grants nothing and
fails only in a cluster, with a 403 far from its cause. `opgen generate`
checks each resource of each rule against what it knows:

- Kubernetes' built-in resources: the `op.k8s` kinds with the plural and
  subresources the API server's discovery gave them
  (`opgen.engine.builtin`), plus the few resources only authorization knows
  (`users` to impersonate, `signers` to approve, the kubelet's `nodes/...`);
- the project's kinds (their plural; `status`, `scale` and `finalizers`);
- the kinds of the CRDs `opgen import crd` imported.

A resource of a group opgen knows must be one of that group's; a group opgen
does not know is another API's (its resources are not checked) unless it is
a near miss of a known group that has the resource. `<plural>/finalizers` and
`<plural>/status` are accepted for any resource (`ANY_RESOURCE_SUBRESOURCES`),
and `*` for any part. Resources given as `custom_resources=` are not
checked. Only the `op.k8s` modules of the groups the rules name are imported;
all of them only when a resource is missing, to say which group has it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from opgen.errors import Location, MarkerError
from opgen.load import display_path
from opgen.load.builtin import builtin_resources, k8s_modules
from opgen.model.kinds import Kind
from opgen.model.rbac import RbacRule
from opgen.project.config import ImportedCrd
from opgen.project.coregroups import CORE_GROUPS

__all__ = ["check_rbac_resources"]

AUTHORIZATION_ONLY: Mapping[str, Mapping[str, frozenset[str]]] = {
    "": {
        "users": frozenset(),
        "groups": frozenset(),
        "nodes": frozenset(
            {"log", "metrics", "stats", "spec", "configz", "healthz", "pods"}
        ),
    },
    "authentication.k8s.io": {"userextras": frozenset(), "uids": frozenset()},
    "certificates.k8s.io": {"signers": frozenset()},
}
"""Resources and subresources the API server authorizes but does not serve:
impersonation, certificate signers, the kubelet's API (`nodes/stats`...)."""

CUSTOM_KIND_SUBRESOURCES = frozenset({"status", "scale"})
ANY_RESOURCE_SUBRESOURCES = frozenset({"finalizers", "status"})
"""`finalizers`: the owner-reference check asks for it on any resource;
`status`: reconciler scaffolds (Kubebuilder's, opgen's for a built-in kind)
grant `<plural>/status` whether or not the kind has one, harmlessly."""

Catalogue = dict[str, dict[str, frozenset[str]]]
"""API group ("" is core) → plural → its subresources."""


@dataclass
class _Known:
    """What opgen knows of the API groups, the built-in ones loaded as needed."""

    own: Catalogue
    """The project's and imported kinds."""
    builtin_groups: Mapping[str, tuple[str, ...]]
    """Built-in API group → its `op.k8s` modules (not imported yet)."""
    loaded: Catalogue = field(default_factory=dict)

    @property
    def groups(self) -> set[str]:
        return {*self.own, *self.builtin_groups}

    def group(self, name: str) -> Mapping[str, frozenset[str]]:
        if name not in self.loaded:
            builtin = _builtin_group(name, self.builtin_groups.get(name, ()))
            self.loaded[name] = {**builtin, **self.own.get(name, {})}
        return self.loaded[name]

    def everything(self) -> Catalogue:
        return {name: dict(self.group(name)) for name in sorted(self.groups)}


def check_rbac_resources(
    rules: Sequence[RbacRule], kinds: Sequence[Kind], imports: Sequence[ImportedCrd]
) -> None:
    """A `MarkerError` naming the file, class, marker and the closest real resource
    for the first resource of `rules` that does not exist in its group."""
    known = _Known(own=_own(kinds, imports), builtin_groups=_builtin_modules())
    for rule in rules:
        unchecked = set(rule.custom_resources)
        resources = [r for r in rule.resources if r not in unchecked]
        if rule.urls or not resources:
            continue
        groups = ["" if g == "core" else g for g in rule.groups] or [""]
        for group in groups:
            for resource in resources:
                problem = _problem(known, group, resource)
                if problem is not None:
                    raise _error(rule, group, resource, *problem)


def _own(kinds: Iterable[Kind], imports: Iterable[ImportedCrd]) -> Catalogue:
    own: Catalogue = {}
    for kind in kinds:
        own.setdefault(kind.group, {})[kind.names.plural] = CUSTOM_KIND_SUBRESOURCES
    for entry in imports:
        plural, _, group = entry.crd.partition(".")
        own.setdefault(group, {})[plural] = CUSTOM_KIND_SUBRESOURCES
    return own


def _builtin_modules() -> dict[str, tuple[str, ...]]:
    """Each built-in API group's `op.k8s` modules (`apps` → `apps_v1`), by name only."""
    names = k8s_modules()
    modules: dict[str, tuple[str, ...]] = {group: () for group in AUTHORIZATION_ONLY}
    for short, group in CORE_GROUPS.items():
        found = tuple(
            name for name in names if name.rpartition(".")[2].startswith(f"{short}_")
        )
        if found or group in modules:
            modules[group] = found
    return modules


def _builtin_group(group: str, modules: Iterable[str]) -> dict[str, frozenset[str]]:
    resources = {
        plural: frozenset(subresources)
        for plural, subresources in AUTHORIZATION_ONLY.get(group, {}).items()
    }
    for module_name in modules:
        for facts in builtin_resources(module_name):
            if facts.group == group:
                before = resources.get(facts.plural, frozenset())
                resources[facts.plural] = before | frozenset(facts.subresources)
    return resources


def _problem(known: _Known, group: str, resource: str) -> tuple[str, str] | None:
    """What is wrong with `resource` in `group`, and the closest real one ("" when
    none is close); None when it exists or opgen cannot know."""
    plural, _, subresource = resource.partition("/")
    if group == "*":
        if plural == "*" or any(
            plural in resources for resources in known.everything().values()
        ):
            return None
        return f"no API group has a resource {plural!r}", _closest_anywhere(
            known, plural
        )
    if group not in known.groups:
        near = difflib.get_close_matches(group, sorted(known.groups), n=3, cutoff=0.8)
        having = [name for name in near if plural in known.group(name)]
        if not having:
            return None  # another API's group: opgen cannot know its resources
        return f"there is no API group {group!r}", f"groups=[{having[0]!r}]"
    resources = known.group(group)
    if plural != "*" and plural not in resources:
        elsewhere = sorted(g for g, rs in known.everything().items() if plural in rs)
        if elsewhere:
            return (
                f"{_group_name(group)} has no resource {plural!r}",
                f"groups=[{_spelled(elsewhere[0])!r}] ({plural} is "
                f"{_group_name(elsewhere[0])}'s)",
            )
        close = difflib.get_close_matches(plural.lower(), sorted(resources), n=1)
        return (
            f"{_group_name(group)} has no resource {plural!r}",
            repr(_with_sub(close[0], subresource)) if close else "",
        )
    if not subresource or subresource == "*":
        return None
    allowed = ANY_RESOURCE_SUBRESOURCES.union(
        *(
            subresources
            for name, subresources in resources.items()
            if plural in ("*", name)
        )
    )
    if subresource in allowed:
        return None
    close = difflib.get_close_matches(subresource, sorted(allowed), n=1)
    return (
        f"{plural} has no subresource {subresource!r} (it has "
        f"{', '.join(sorted(allowed))})",
        repr(f"{plural}/{close[0]}") if close else "",
    )


def _closest_anywhere(known: _Known, plural: str) -> str:
    everything = known.everything()
    plurals = sorted({p for resources in everything.values() for p in resources})
    close = difflib.get_close_matches(plural.lower(), plurals, n=1)
    if not close:
        return ""
    group = min(g for g, resources in everything.items() if close[0] in resources)
    return f"{close[0]!r} (in {_group_name(group)})"


def _with_sub(plural: str, subresource: str) -> str:
    return f"{plural}/{subresource}" if subresource else plural


def _group_name(group: str) -> str:
    return "the core group" if group == "" else f"group {group!r}"


def _spelled(group: str) -> str:
    return "core" if group == "" else group


def _error(
    rule: RbacRule, group: str, resource: str, problem: str, closest: str
) -> MarkerError:
    source = rule.source
    location = (
        Location(
            file=display_path(source.file) if source.file else None, cls=source.cls
        )
        if source is not None
        else None
    )
    guess = f"; did you mean {closest}?" if closest else ""
    return MarkerError(
        f"@op.rbac(groups=[{_spelled(group)!r}], resources=[{resource!r}]): "
        f"{problem}{guess}",
        location=location,
        hint="resources are the lower-case plurals `kubectl api-resources` lists, "
        "subresources as `deployments/scale`; a resource of an API opgen does not "
        f"know goes in custom_resources=[{resource!r}]",
    )
