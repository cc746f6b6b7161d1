package mdterm

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// lexicon is what the highlighter knows of one language: enough for keywords, strings,
// comments and numbers, which is what makes code readable at a glance.
type lexicon struct {
	lineComments []string
	blockComment [2]string
	quotes       string // characters that open a string closed by the same character
	multiline    string // quotes whose strings may span lines
	triple       bool   // """ and ''' strings (Python)
	hashAtWord   bool   // # opens a comment only at the start of a word (shell)
	keywords     map[string]bool
	types        map[string]bool
	literals     map[string]bool
	yamlKeys     bool // a word before ':' is a key
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// lexicons are built on first use, never at program start.
var lexicons = sync.OnceValue(func() map[string]*lexicon {
	goLex := &lexicon{lineComments: []string{"//"}, blockComment: [2]string{"/*", "*/"}, quotes: "\"'`", multiline: "`",
		keywords: set("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var"),
		types:    set("bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any comparable"),
		literals: set("true false nil iota")}
	py := &lexicon{lineComments: []string{"#"}, quotes: "\"'", triple: true,
		keywords: set("and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case"),
		types:    set("int float str bytes bool list dict set tuple object type self cls print len range"),
		literals: set("True False None")}
	js := &lexicon{lineComments: []string{"//"}, blockComment: [2]string{"/*", "*/"}, quotes: "\"'`", multiline: "`",
		keywords: set("async await break case catch class const continue debugger default delete do else export extends finally for from function if import in instanceof let new of return static super switch this throw try typeof var void while with yield as interface type enum implements declare readonly public private protected namespace abstract keyof"),
		types:    set("string number boolean any unknown never void object bigint symbol Array Promise Map Set Record"),
		literals: set("true false null undefined NaN Infinity")}
	sh := &lexicon{lineComments: []string{"#"}, quotes: "\"'", hashAtWord: true,
		keywords: set("if then else elif fi for while until do done case esac in function return export local readonly set unset exit source alias declare"),
		types:    set("echo cd ls cat grep sed awk printf test go git make npm npx pip python rm mkdir cp mv chmod sudo"),
		literals: set("true false")}
	rust := &lexicon{lineComments: []string{"//"}, blockComment: [2]string{"/*", "*/"}, quotes: "\"",
		keywords: set("as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait type unsafe use where while"),
		types:    set("bool char str String i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 Vec Option Result Box"),
		literals: set("true false None Some Ok Err")}
	json := &lexicon{quotes: "\"", literals: set("true false null")}
	yaml := &lexicon{lineComments: []string{"#"}, quotes: "\"'", hashAtWord: true, yamlKeys: true,
		literals: set("true false null yes no on off ~")}
	m := map[string]*lexicon{}
	for names, lx := range map[string]*lexicon{
		"go golang": goLex, "python py python3": py, "sh bash shell zsh console shellsession": sh,
		"js javascript jsx mjs cjs ts typescript tsx": js, "rust rs": rust, "json jsonc": json, "yaml yml": yaml,
	} {
		for _, n := range strings.Fields(names) {
			m[n] = lx
		}
	}
	return m
})

type token struct {
	class tokenClass
	text  string
}

// highlight splits code into lines of styled frags. An unknown language is one colour.
func (r *renderer) highlight(code, lang string) []line {
	toks, known := tokensOf(code, lang)
	if r.lk.plain || !known {
		return r.splitLines([]token{{tokPlain, code}}, func(tokenClass) style { return r.lk.codeBlock })
	}
	return r.splitLines(toks, func(c tokenClass) style { return r.lk.tokens[c] })
}

// tokensOf scans code of lang, or reports that the language is not known.
func tokensOf(code, lang string) ([]token, bool) {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if lang == "diff" || lang == "patch" {
		return diffTokens(code), true
	}
	if lx := lexicons()[lang]; lx != nil {
		return lx.tokens(code), true
	}
	return nil, false
}

func (r *renderer) splitLines(toks []token, st func(tokenClass) style) []line {
	lines := []line{nil}
	for _, t := range toks {
		parts := strings.Split(t.text, "\n")
		for i, p := range parts {
			if i > 0 {
				lines = append(lines, nil)
			}
			if p != "" {
				lines[len(lines)-1] = append(lines[len(lines)-1], frag{text: p, st: st(t.class)})
			}
		}
	}
	return lines
}

func diffTokens(code string) []token {
	var toks []token
	for i, l := range strings.Split(code, "\n") {
		c := tokPlain
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"),
			strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "index "):
			c = tokHeader
		case strings.HasPrefix(l, "+"):
			c = tokInserted
		case strings.HasPrefix(l, "-"):
			c = tokDeleted
		}
		if i > 0 {
			toks = append(toks, token{tokPlain, "\n"})
		}
		toks = append(toks, token{c, l})
	}
	return toks
}

func isIdentStart(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) }
func isIdentPart(r rune) bool  { return isIdentStart(r) || unicode.IsDigit(r) }

// tokens scans code once, left to right; what it does not recognise is plain.
func (lx *lexicon) tokens(s string) []token {
	var toks []token
	plainStart := 0
	emit := func(start, end int, c tokenClass) {
		if plainStart < start {
			toks = append(toks, token{tokPlain, s[plainStart:start]})
		}
		toks = append(toks, token{c, s[start:end]})
		plainStart = end
	}
	prev := rune('\n')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if end, c, ok := lx.scan(s, i, r, prev); ok {
			emit(i, end, c)
			prev, _ = utf8.DecodeLastRuneInString(s[i:end])
			i = end
			continue
		}
		prev = r
		i += size
	}
	if plainStart < len(s) {
		toks = append(toks, token{tokPlain, s[plainStart:]})
	}
	return toks
}

// scan reads the token that starts at i, if it is one worth a colour.
func (lx *lexicon) scan(s string, i int, r, prev rune) (int, tokenClass, bool) {
	rest := s[i:]
	for _, lc := range lx.lineComments {
		if strings.HasPrefix(rest, lc) && (!lx.hashAtWord || unicode.IsSpace(prev)) {
			return i + lineEnd(rest), tokComment, true
		}
	}
	if bc := lx.blockComment; bc[0] != "" && strings.HasPrefix(rest, bc[0]) {
		if j := strings.Index(rest[len(bc[0]):], bc[1]); j >= 0 {
			return i + len(bc[0]) + j + len(bc[1]), tokComment, true
		}
		return len(s), tokComment, true
	}
	if lx.triple && (strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, "'''")) {
		if j := strings.Index(rest[3:], rest[:3]); j >= 0 {
			return i + 6 + j, tokString, true
		}
		return len(s), tokString, true
	}
	if strings.ContainsRune(lx.quotes, r) {
		return i + stringEnd(rest, r, strings.ContainsRune(lx.multiline, r)), tokString, true
	}
	if unicode.IsDigit(r) && !isIdentPart(prev) {
		j := 0
		for j < len(rest) {
			c, size := utf8.DecodeRuneInString(rest[j:])
			if !isIdentPart(c) && c != '.' {
				break
			}
			j += size
		}
		return i + j, tokNumber, true
	}
	if isIdentStart(r) && !isIdentPart(prev) {
		j := 0
		for j < len(rest) {
			c, size := utf8.DecodeRuneInString(rest[j:])
			if stop := !isIdentPart(c); c == '-' && lx.yamlKeys {
				stop = false // yaml keys and values may hold dashes
			} else if stop {
				break
			}
			j += size
		}
		return i + j, lx.classify(rest[:j], rest[j:]), true
	}
	return 0, 0, false
}

func (lx *lexicon) classify(w, after string) tokenClass {
	switch {
	case lx.yamlKeys && strings.HasPrefix(after, ":"):
		return tokKeyword
	case lx.keywords[w]:
		return tokKeyword
	case lx.types[w]:
		return tokType
	case lx.literals[w]:
		return tokLiteral
	case strings.HasPrefix(after, "(") && !lx.yamlKeys:
		return tokFunction
	}
	return tokPlain
}

func lineEnd(s string) int {
	if j := strings.IndexByte(s, '\n'); j >= 0 {
		return j
	}
	return len(s)
}

// stringEnd is the length of the string literal opening s, its closing quote included; an
// unclosed one ends with its line.
func stringEnd(s string, q rune, multiline bool) int {
	for j := 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if q != '`' {
				j++
			}
		case '\n':
			if !multiline {
				return j
			}
		case byte(q):
			return j + 1
		}
	}
	return len(s)
}
