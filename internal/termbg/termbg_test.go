package termbg

import "testing"

func TestParseAnswer(t *testing.T) {
	cases := []struct {
		in       string
		dark, ok bool
	}{
		{"\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[12;1R", true, true},
		{"\x1b]11;rgb:ffff/ffff/ffff\x07\x1b[1;1R", false, true},
		{"\x1b]11;rgb:fd/f6/e3\x1b\\", false, true},
		{"\x1b[3;7R", false, false},                // no OSC 11 support
		{"\x1b]11;rgb:ffff/ffff", false, false},    // cut short
		{"\x1b]11;rgb:zz/00/00\x07", false, false}, // not hex
		{"\x1b]11;rgb:00/00\x07", false, false},    // two channels
		{"", false, false},
	}
	for _, c := range cases {
		dark, ok := parseAnswer(c.in)
		if dark != c.dark || ok != c.ok {
			t.Errorf("parseAnswer(%q) = %v, %v; want %v, %v", c.in, dark, ok, c.dark, c.ok)
		}
	}
}

func TestComplete(t *testing.T) {
	if complete("\x1b]11;rgb:0000/0000/0000\x1b\\") {
		t.Error("the OSC answer alone is not the end")
	}
	if !complete("\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[12;40R") {
		t.Error("the cursor answer ends the exchange")
	}
}
