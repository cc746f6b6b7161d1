package themes

// Dark is for dark terminal backgrounds.
func Dark() Palette {
	return Palette{
		Name:          DarkName,
		Text:          fixed("#D8DEE9"),
		Muted:         fixed("#7B8496"),
		Accent:        fixed("#7AA2F7"),
		OK:            fixed("#9ECE6A"),
		Warn:          fixed("#E0AF68"),
		Danger:        fixed("#F7768E"),
		Border:        fixed("#3B4252"),
		BorderFocused: fixed("#7AA2F7"),
		SelFg:         fixed("#FFFFFF"),
		SelBg:         fixed("#364A82"),
		SelBgInactive: fixed("#2A2F3A"),
		User:          fixed("#BB9AF7"),
		Assistant:     fixed("#7DCFFF"),
		StatusBg:      fixed("#1F2335"),
	}
}
