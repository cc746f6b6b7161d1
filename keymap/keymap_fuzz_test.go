package keymap

import (
	"testing"

	"github.com/BurntSushi/toml"
)

// A [keys] table of any shape is applied or refused, never a panic.
func FuzzApplyKeys(f *testing.F) {
	for _, s := range []string{
		"\"thread.archive\" = \"q\"\n", "\"thread.archive\" = [\"A\", \"ctrl+a\"]\n", "\"thread.zap\" = \"z\"\n",
		"\"thread.archive\" = 3\n", "\"thread.archive\" = []\n", "\"quit\" = \"\"\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var keys map[string]any
		if _, err := toml.Decode(text, &keys); err != nil {
			return
		}
		km := Default()
		if err := Apply(&km, keys); err != nil {
			return
		}
		_ = Validate(&km)
	})
}
