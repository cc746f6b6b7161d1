package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// manualFields is the OUTPUT FIELDS section of `delegate --help`, parsed: for each command
// and each object type, its keys and their types (a type naming an object, or X[] for a list).
type manualFields map[string]map[string]string

var (
	manualHeader = regexp.MustCompile(`^  (\S.*):$`)
	manualField  = regexp.MustCompile(`^    (\S+?)\?? +(\S+) +\S`)
)

func parseManualFields(t *testing.T, manual string) manualFields {
	t.Helper()
	_, section, ok := strings.Cut(manual, "\nOUTPUT FIELDS\n")
	if !ok {
		t.Fatal("the manual has no OUTPUT FIELDS section")
	}
	section, _, _ = strings.Cut(section, "\n\n")
	out := manualFields{}
	var cur string
	for _, line := range strings.Split(section, "\n") {
		if m := manualHeader.FindStringSubmatch(line); m != nil {
			cur = strings.TrimSuffix(m[1], " object")
			out[cur] = map[string]string{}
		} else if m := manualField.FindStringSubmatch(line); m != nil && cur != "" {
			out[cur][m[1]] = m[2]
		} else {
			t.Fatalf("unparsable OUTPUT FIELDS line %q", line)
		}
	}
	return out
}

// drift collects, per documented owner (a command or an object type), the keys the CLI
// emitted, and the keys it emitted that the manual does not document.
type drift struct {
	fields       manualFields
	seen         map[string]map[string]bool
	undocumented []string
}

func newDrift(fields manualFields) *drift {
	return &drift{fields: fields, seen: map[string]map[string]bool{}}
}

// add walks one emitted document of command as the manual describes it.
func (d *drift) add(command, stdout string) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		d.undocumented = append(d.undocumented, command+": not a JSON object: "+stdout)
		return
	}
	d.walk(command, command, doc)
}

func (d *drift) walk(owner, path string, obj map[string]any) {
	keys, ok := d.fields[owner]
	if !ok {
		d.undocumented = append(d.undocumented, path+": object type "+owner+" is not documented")
		return
	}
	if d.seen[owner] == nil {
		d.seen[owner] = map[string]bool{}
	}
	for k, v := range obj {
		typ, ok := keys[k]
		if !ok {
			d.undocumented = append(d.undocumented, path+"."+k+" (of "+owner+")")
			continue
		}
		d.seen[owner][k] = true
		elem := strings.TrimSuffix(typ, "[]")
		if _, isObject := d.fields[elem]; !isObject {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			d.walk(elem, path+"."+k, x)
		case []any:
			for _, e := range x {
				if m, ok := e.(map[string]any); ok {
					d.walk(elem, path+"."+k+"[]", m)
				}
			}
		}
	}
}

// never lists documented keys no document had, leaving out the exempt ones. Owners with the
// same keys and types are one type printed in several places (thread read and thread wait;
// thread watch and delegate start's watch): a key seen in one is seen in all.
func (d *drift) never(exempt map[string]string) []string {
	shape := func(owner string) string {
		b, _ := json.Marshal(d.fields[owner]) // map keys are sorted
		return string(b)
	}
	seenIn := map[string]map[string]bool{}
	for owner := range d.fields {
		if seenIn[shape(owner)] == nil {
			seenIn[shape(owner)] = map[string]bool{}
		}
		for k := range d.seen[owner] {
			seenIn[shape(owner)][k] = true
		}
	}
	var out []string
	for owner, keys := range d.fields {
		for k := range keys {
			if !seenIn[shape(owner)][k] && exempt[owner+"."+k] == "" && exempt[shape(owner)+"."+k] == "" {
				out = append(out, owner+"."+k)
			}
		}
	}
	sort.Strings(out)
	return out
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
