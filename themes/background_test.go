package themes

import "testing"

func TestDarkBackgroundAsksOnlyWhenNothingDecides(t *testing.T) {
	auto, _ := ByName(Auto)
	light, _ := ByName(LightName)
	dark, _ := ByName(DarkName)
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	cases := []struct {
		name      string
		p         Palette
		noColor   bool
		env       map[string]string
		answer    [2]bool // dark, ok
		wantDark  bool
		wantAsked bool
	}{
		{"light theme", light, false, nil, [2]bool{true, true}, false, false},
		{"dark theme", dark, false, nil, [2]bool{false, true}, true, false},
		{"no colour", auto, true, nil, [2]bool{false, true}, true, false},
		{"COLORFGBG light", auto, false, map[string]string{"COLORFGBG": "0;15"}, [2]bool{true, true}, false, false},
		{"COLORFGBG dark", auto, false, map[string]string{"COLORFGBG": "15;default;0"}, [2]bool{false, true}, true, false},
		{"asks: light", auto, false, nil, [2]bool{false, true}, false, true},
		{"asks: no answer", auto, false, map[string]string{"COLORFGBG": "junk"}, [2]bool{false, false}, true, true},
	}
	for _, c := range cases {
		asks := 0
		d, asked := DarkBackground(c.p, c.noColor, env(c.env), func() (bool, bool) { asks++; return c.answer[0], c.answer[1] })
		if d != c.wantDark || asked != c.wantAsked || asks != map[bool]int{true: 1, false: 0}[c.wantAsked] {
			t.Errorf("%s: dark %v asked %v (%d calls); want %v %v", c.name, d, asked, asks, c.wantDark, c.wantAsked)
		}
	}
}
