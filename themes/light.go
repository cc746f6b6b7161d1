package themes

// Light is for light terminal backgrounds.
func Light() Palette {
	return Palette{
		Name:          LightName,
		Text:          fixed("#24292F"),
		Muted:         fixed("#6E7781"),
		Accent:        fixed("#0550AE"),
		OK:            fixed("#1A7F37"),
		Warn:          fixed("#9A6700"),
		Danger:        fixed("#CF222E"),
		Border:        fixed("#D0D7DE"),
		BorderFocused: fixed("#0969DA"),
		SelFg:         fixed("#000000"),
		SelBg:         fixed("#B6D7FF"),
		SelBgInactive: fixed("#EAEEF2"),
		User:          fixed("#8250DF"),
		Assistant:     fixed("#0A3069"),
		StatusBg:      fixed("#F0F3F6"),
	}
}
