package mdterm

import (
	"strings"

	"github.com/muesli/termenv"
)

// style is one combination of colours and attributes; a comparable value so the escape
// sequence of each combination is built once per render.
type style struct {
	fg, bg                                 string
	bold, italic, underline, strike, faint bool
}

// token classes of the code highlighter, each with a colour per look.
type tokenClass int

const (
	tokPlain tokenClass = iota
	tokComment
	tokString
	tokNumber
	tokKeyword
	tokType
	tokLiteral // true, false, nil, None…
	tokFunction
	tokInserted
	tokDeleted
	tokHeader // diff headers and hunks
	tokClassCount
)

// look is what a style name (dark, light, notty) draws: colours, and for notty the markers
// that carry what attributes would.
type look struct {
	plain bool // no colour and no attributes: markers instead

	text, h1, heading, h6, codeSpan, codeBlock, link, linkText, rule, quote, tableRule style
	tokens                                                                             [tokClassCount]style

	bullet, ticked, unticked, quoteBar string
	ruleText                           string
	tableCol, tableRow, tableCross     string
}

func lookFor(name string) look {
	switch name {
	case "dark":
		return darkLook()
	case "light":
		return lightLook()
	default:
		return plainLook()
	}
}

// The colours follow the standard dark and light styles terminal markdown renderers share,
// so assistant text looks as it did.
func darkLook() look {
	l := colourLook()
	l.text = style{fg: "252"}
	l.heading = style{fg: "39", bold: true}
	l.h6 = style{fg: "35"}
	l.codeSpan = style{fg: "203", bg: "236"}
	l.codeBlock = style{fg: "244"}
	l.link = style{fg: "30", underline: true}
	l.linkText = style{fg: "35", bold: true}
	l.rule = style{fg: "240"}
	l.quote = style{fg: "244"}
	l.tableRule = style{fg: "240"}
	l.tokens = [tokClassCount]style{
		tokPlain: {fg: "#C4C4C4"}, tokComment: {fg: "#676767"}, tokString: {fg: "#C69669"},
		tokNumber: {fg: "#6EEFC0"}, tokKeyword: {fg: "#00AAFF"}, tokType: {fg: "#6E6ED8"},
		tokLiteral: {fg: "#FF8EC7"}, tokFunction: {fg: "#00D787"}, tokInserted: {fg: "#00D787"}, tokDeleted: {fg: "#FD5B5B"},
		tokHeader: {fg: "#777777", bold: true},
	}
	return l
}

func lightLook() look {
	l := colourLook()
	l.text = style{fg: "234"}
	l.heading = style{fg: "27", bold: true}
	l.h6 = style{fg: "35"}
	l.codeSpan = style{fg: "203", bg: "254"}
	l.codeBlock = style{fg: "242"}
	l.link = style{fg: "36", underline: true}
	l.linkText = style{fg: "29", bold: true}
	l.rule = style{fg: "249"}
	l.quote = style{fg: "242"}
	l.tableRule = style{fg: "249"}
	l.tokens = [tokClassCount]style{
		tokPlain: {fg: "#2A2A2A"}, tokComment: {fg: "#8D8D8D"}, tokString: {fg: "#7E5B38"},
		tokNumber: {fg: "#22CCAE"}, tokKeyword: {fg: "#279EFC"}, tokType: {fg: "#7049C2"},
		tokLiteral: {fg: "#FB406F"}, tokFunction: {fg: "#019F57"}, tokInserted: {fg: "#00D787"}, tokDeleted: {fg: "#FD5B5B"},
		tokHeader: {fg: "#777777", bold: true},
	}
	return l
}

func colourLook() look {
	return look{
		h1:     style{fg: "228", bg: "63", bold: true},
		bullet: "• ", ticked: "[✓] ", unticked: "[ ] ", quoteBar: "│ ", ruleText: "────────",
		tableCol: "│", tableRow: "─", tableCross: "┼",
	}
}

// plainLook is for NO_COLOR and no terminal: nothing but characters.
func plainLook() look {
	return look{
		plain:  true,
		bullet: "• ", ticked: "[x] ", unticked: "[ ] ", quoteBar: "| ", ruleText: "--------",
		tableCol: "|", tableRow: "-", tableCross: "|",
	}
}

// painter turns styles into escape sequences for one colour profile, caching each one.
type painter struct {
	profile termenv.Profile
	plain   bool
	seqs    map[style]string
}

func newPainter(profile termenv.Profile, plain bool) *painter {
	return &painter{profile: profile, plain: plain || profile == termenv.Ascii, seqs: map[style]string{}}
}

func (p *painter) paint(s style, text string) string {
	if p.plain || text == "" {
		return text
	}
	seq, ok := p.seqs[s]
	if !ok {
		seq = p.sequence(s)
		p.seqs[s] = seq
	}
	if seq == "" {
		return text
	}
	return seq + text + "\x1b[0m"
}

func (p *painter) sequence(s style) string {
	var parts []string
	if s.bold {
		parts = append(parts, "1")
	}
	if s.faint {
		parts = append(parts, "2")
	}
	if s.italic {
		parts = append(parts, "3")
	}
	if s.underline {
		parts = append(parts, "4")
	}
	if s.strike {
		parts = append(parts, "9")
	}
	if s.fg != "" {
		if c := p.profile.Color(s.fg); c != nil {
			if seq := c.Sequence(false); seq != "" {
				parts = append(parts, seq)
			}
		}
	}
	if s.bg != "" {
		if c := p.profile.Color(s.bg); c != nil {
			if seq := c.Sequence(true); seq != "" {
				parts = append(parts, seq)
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "\x1b[" + strings.Join(parts, ";") + "m"
}
