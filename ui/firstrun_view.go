package ui

import (
	"strconv"
	"strings"
	"time"
)

// View draws the panel at most w cells wide and h lines tall. Every text is wrapped, never
// cut: what does not fit scrolls.
func (p *setupPanel) View(w, h int) []string {
	st := p.c.st
	bw := min(w, 100)
	inner := max(bw-4, 10)
	content := p.content(inner)
	// Two border rows and the key line are always there.
	p.rows = max(h-3, 1)
	if p.follow {
		p.off = len(content) - p.rows
	}
	p.off = max(min(p.off, len(content)-p.rows), 0)
	end := min(p.off+p.rows, len(content))
	body := append([]string(nil), content[p.off:end]...)
	keys := p.keyLine()
	if len(content) > p.rows {
		keys += st.Muted.Render("  · lines " + strconv.Itoa(p.off+1) + "–" + strconv.Itoa(end) + " of " + strconv.Itoa(len(content)))
	}
	body = append(body, keys)
	border := st.DialogBorder
	if !p.st.Available && p.res == nil {
		border = st.DialogDanger
	}
	return dialogBox(p.title(), body, bw, border, st.TitleFocused)
}

func (p *setupPanel) title() string {
	switch {
	case p.installing:
		return "Installing Codex " + p.st.PinnedVersion
	case p.st.Available:
		return "Codex"
	}
	return p.c.st.G.Danger + "Codex is not available"
}

func (p *setupPanel) keyLine() string {
	st, km := p.c.st, p.c.keys
	var parts []string
	if p.st.CanInstall && !p.installing {
		verb := "install"
		if p.err != nil {
			verb = "try again"
		}
		parts = append(parts, st.Accent.Render(km.Setup.Install.Help().Key+" "+verb))
	}
	parts = append(parts, km.List.Up.Help().Key+" "+km.List.Down.Help().Key+" scroll", km.Setup.Close.Help().Key+" close", km.Global.Quit.Help().Key+" quit")
	return strings.Join(parts, st.Muted.Render(" · "))
}

// content is the panel's text, wrapped to width.
func (p *setupPanel) content(width int) []string {
	st := p.c.st
	var out []string
	section := func(title string, paras ...string) {
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, st.HelpSection.Render(title))
		for _, para := range paras {
			for _, l := range wrap(clean(para), width-2) {
				out = append(out, "  "+l)
			}
		}
	}
	s := p.st
	switch {
	case !p.known:
		section("Codex", "asking the runtime where its codex binary is…")
		return out
	case s.Available:
		section("Codex is available", s.Bin, "The App Server starts from it when the fleet or a native thread needs it.")
		return out
	}
	if s.Error != nil {
		section("Cause", s.Error.Message)
		section("Fix", s.Error.Hint)
	}
	p.installSection(section)
	section("Without it",
		"External harnesses, watches and the runtime's own threads work as they are; native Codex sessions and the fleet's hosts need the App Server.")
	return out
}

func (p *setupPanel) installSection(section func(string, ...string)) {
	s := p.st
	switch {
	case p.installing:
		elapsed := p.c.now().Sub(p.since).Round(time.Second)
		section("Installing", "npm install @openai/codex@"+s.PinnedVersion+" into "+s.InstallDir+" · "+elapsed.String())
		p.npmSection(section)
	case p.res != nil && p.res.StartError != nil:
		section("Installed", p.res.Bin)
		section("The App Server did not start", p.res.StartError.Message, "Fix: "+p.res.StartError.Hint)
		p.npmSection(section)
	case p.err != nil:
		section("The install failed", p.err.Message, "Fix: "+p.err.Hint)
		p.npmSection(section)
	case s.CanInstall:
		section("Install from here",
			"Press "+p.c.keys.Setup.Install.Help().Key+" to install @openai/codex@"+s.PinnedVersion+" with npm ("+s.NPM+") into "+s.InstallDir+
				". It downloads about 160 MB (about 400 MB installed); the App Server starts when it is done, without a restart.",
			"npm runs with an empty home of its own, so no ~/.npmrc or token is read; it sees PATH, the CA certificate variables and proxies without credentials. Where the network needs more, run the npm command of the fix by hand.")
	case s.InstallRefusal != nil:
		section("Not from here", s.InstallRefusal.Message, "Fix: "+s.InstallRefusal.Hint)
	}
}

func (p *setupPanel) npmSection(section func(string, ...string)) {
	if len(p.lines) == 0 {
		if p.installing {
			section("npm", "waiting for npm's first line…")
		}
		return
	}
	section("npm", p.lines...)
}
