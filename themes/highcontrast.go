package themes

// HighContrastPalette keeps to the 16 basic ANSI colours at full intensity, which every
// terminal renders and which users' own high-contrast terminal schemes remap.
func HighContrastPalette() Palette {
	return Palette{
		Name:          HighContrast,
		Text:          pair("0", "15"),
		Muted:         pair("8", "7"),
		Accent:        pair("4", "14"),
		OK:            pair("2", "10"),
		Warn:          pair("3", "11"),
		Danger:        pair("1", "9"),
		Border:        pair("0", "15"),
		BorderFocused: pair("4", "11"),
		SelFg:         pair("15", "0"),
		SelBg:         pair("0", "11"),
		SelBgInactive: pair("8", "7"),
		User:          pair("5", "13"),
		Assistant:     pair("0", "15"),
		StatusBg:      pair("15", "0"),
	}
}
