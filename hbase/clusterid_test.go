package hbase

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestParseClusterIDZNode reads the id from <parent>/hbaseid as HBase writes it, and refuses
// content that is not that.
func TestParseClusterIDZNode(t *testing.T) {
	msg := protowire.AppendTag(nil, 1, protowire.BytesType)
	msg = protowire.AppendString(msg, "2f7b1c6e-0d4a-4f7e-9a51-7c1f0e9d3b22")
	meta := []byte{0xFF, 0, 0, 0, 4, 'p', 'i', 'd', '1'}
	full := append(append(append([]byte{}, meta...), "PBUF"...), msg...)
	if id, err := parseClusterIDZNode(full); err != nil || id != "2f7b1c6e-0d4a-4f7e-9a51-7c1f0e9d3b22" {
		t.Errorf("parse = %q, %v", id, err)
	}
	for name, d := range map[string][]byte{
		"empty":    nil,
		"no magic": msg,
		"no id":    []byte("PBUF"),
		"cut":      append([]byte("PBUF"), msg[:5]...),
	} {
		if id, err := parseClusterIDZNode(d); !errors.Is(err, ErrZNode) {
			t.Errorf("%s: parse = %q, %v; want ErrZNode", name, id, err)
		}
	}
}
