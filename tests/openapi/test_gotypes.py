"""Reading Go API declarations: fields, tags, markers, docs, embeds."""

from __future__ import annotations

from opgen.openapi.gotypes import (
    doc_text,
    element_type,
    go_default,
    go_required,
    go_validations,
    parse_go_types,
)

SOURCE = """package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Capability represent POSIX capabilities type
type Capability string

// Port is a port.
// TODO: drop this line.
// +structType=atomic
type Port struct {
	metav1.TypeMeta `json:",inline"`
	// The reference, embedded.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=ref"`

	// Protocol for port.
	// +default="TCP"
	// +optional
	Protocol Protocol `json:"protocol,omitempty"`
	// +default=ref(DefaultMode)
	Mode *Mode `json:"mode,omitempty"`
	// +optional
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:Pattern=`^[a-z]+$`
	// +kubebuilder:validation:MaxLength=316
	Error *string `json:"error,omitempty"`
	Number int32 `json:"number"`
	Added []Capability `json:"added,omitempty"`
	Target intstr.IntOrString `json:"target,omitzero"`
	Skipped string `json:"-"`
	internal string
}
"""


def test_types_fields_markers_and_docs() -> None:
    types = parse_go_types(SOURCE)
    assert set(types) == {"Capability", "Port"}
    assert types["Capability"].underlying == "string"
    port = types["Port"]
    assert port.doc == ("Port is a port.", "TODO: drop this line.")
    assert port.markers == ("+structType=atomic",)
    assert doc_text(port.doc) == "Port is a port."
    assert port.package_of("metav1") == "k8s.io/apimachinery/pkg/apis/meta/v1"
    assert port.package_of("intstr") == "k8s.io/apimachinery/pkg/util/intstr"
    names = [(f.name, f.json_name, f.inline) for f in port.fields or ()]
    assert names == [
        ("TypeMeta", "", True),
        ("LocalObjectReference", "", True),
        ("Protocol", "protocol", False),
        ("Mode", "mode", False),
        ("Error", "error", False),
        ("Number", "number", False),
        ("Added", "added", False),
        ("Target", "target", False),
    ]


def test_defaults_required_and_validations_as_controller_gen_reads_them() -> None:
    port = parse_go_types(SOURCE)["Port"]
    field = {f.json_name: f for f in port.fields or ()}
    assert go_default(field["protocol"]) is not None
    assert go_default(field["protocol"]).value == "TCP"  # type: ignore[union-attr]
    assert go_default(field["mode"]) is None  # ref(...) is skipped
    assert go_default(field["number"]) is None
    assert not go_required(field["protocol"])
    assert go_required(field["error"])  # kubebuilder Required beats +optional
    assert go_required(field["number"])  # no omitempty
    assert not go_required(field["target"])  # omitzero
    assert go_validations(field["error"]) == {"pattern": "^[a-z]+$", "maxLength": 316}


def test_element_types_and_doc_paragraphs() -> None:
    assert element_type("*[]Capability") == "Capability"
    assert element_type("map[string]resource.Quantity") == "resource.Quantity"
    assert element_type("map[string][]string") == "string"
    text = doc_text(["First line", "goes on.", "", "Second.", "---", "hidden"])
    assert text == "First line goes on.\n\nSecond."
