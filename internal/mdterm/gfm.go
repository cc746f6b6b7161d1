package mdterm

import (
	"bytes"

	gast "github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The GFM pieces (strikethrough, task lists, tables) are parsed here rather than by
// goldmark's extension package: that package compiles its regular expressions and builds its
// HTML renderers at program start, which every command of the binary would pay.

type strikeDelimiters struct{}

func (strikeDelimiters) IsDelimiter(b byte) bool { return b == '~' }
func (strikeDelimiters) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}
func (strikeDelimiters) OnMatch(int) gast.Node { return east.NewStrikethrough() }

// strikeParser reads ~text~ and ~~text~~ as GFM does.
type strikeParser struct{}

func (strikeParser) Trigger() []byte { return []byte{'~'} }

func (strikeParser) Parse(_ gast.Node, block text.Reader, pc parser.Context) gast.Node {
	before := block.PrecendingCharacter()
	line, segment := block.PeekLine()
	node := parser.ScanDelimiter(line, before, 1, strikeDelimiters{})
	if node == nil || node.OriginalLength > 2 || before == '~' {
		return nil
	}
	node.Segment = segment.WithStop(segment.Start + node.OriginalLength)
	block.Advance(node.OriginalLength)
	pc.PushDelimiter(node)
	return node
}

func (strikeParser) CloseBlock(gast.Node, parser.Context) {}

// taskParser reads the [ ] or [x] that opens the first line of a list item.
type taskParser struct{}

func (taskParser) Trigger() []byte { return []byte{'['} }

func (taskParser) Parse(parent gast.Node, block text.Reader, _ parser.Context) gast.Node {
	if parent.Parent() == nil || parent.Parent().FirstChild() != parent || parent.HasChildren() {
		return nil
	}
	if _, ok := parent.Parent().(*gast.ListItem); !ok {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 3 || line[0] != '[' || line[2] != ']' {
		return nil
	}
	mark := line[1]
	if mark != 'x' && mark != 'X' && !util.IsSpace(mark) {
		return nil
	}
	n := 3
	for n < len(line) && util.IsSpace(line[n]) {
		n++
	}
	block.Advance(n)
	return east.NewTaskCheckBox(mark == 'x' || mark == 'X')
}

func (taskParser) CloseBlock(gast.Node, parser.Context) {}

// tableTransformer turns a paragraph whose second line is a delimiter row into a table.
type tableTransformer struct{}

func (tableTransformer) Transform(node *gast.Paragraph, reader text.Reader, _ parser.Context) {
	lines := node.Lines()
	if lines.Len() < 2 {
		return
	}
	for i := 1; i < lines.Len(); i++ {
		delim := lines.At(i)
		aligns := parseDelimiterRow(delim.Value(reader.Source()))
		if aligns == nil {
			continue
		}
		header := parseTableRow(lines.At(i-1), aligns, true, reader.Source())
		if header == nil || len(aligns) != header.ChildCount() {
			return
		}
		table := east.NewTable()
		table.Alignments = aligns
		table.AppendChild(table, east.NewTableHeader(header))
		for j := i + 1; j < lines.Len(); j++ {
			table.AppendChild(table, parseTableRow(lines.At(j), aligns, false, reader.Source()))
		}
		node.Lines().SetSliced(0, i-1)
		node.Parent().InsertAfter(node.Parent(), node, table)
		if node.Lines().Len() == 0 {
			node.Parent().RemoveChild(node.Parent(), node)
		} else {
			last := node.Lines().At(i - 2)
			last.Stop--
			node.Lines().Set(i-2, last)
		}
		return
	}
}

func parseTableRow(segment text.Segment, aligns []east.Alignment, header bool, source []byte) *east.TableRow {
	segment = segment.TrimLeftSpace(source)
	segment = segment.TrimRightSpace(source)
	line := segment.Value(source)
	pos, limit := 0, len(line)
	if limit > 0 && line[0] == '|' {
		pos++
	}
	if limit > 0 && line[limit-1] == '|' && (limit < 2 || line[limit-2] != '\\') {
		limit--
	}
	row := east.NewTableRow(aligns)
	i := 0
	for ; pos < limit; i++ {
		align := east.AlignNone
		if i >= len(aligns) {
			if !header {
				return row
			}
		} else {
			align = aligns[i]
		}
		end := pos
		for end < limit && (line[end] != '|' || (end > 0 && line[end-1] == '\\')) {
			end++
		}
		cell := east.NewTableCell()
		cell.Alignment = align
		seg := text.NewSegment(segment.Start+pos, segment.Start+end)
		seg = seg.TrimLeftSpace(source)
		seg = seg.TrimRightSpace(source)
		cell.Lines().Append(seg)
		row.AppendChild(row, cell)
		pos = end + 1
	}
	for ; i < len(aligns); i++ {
		row.AppendChild(row, east.NewTableCell())
	}
	return row
}

// parseDelimiterRow reads |:---|---:|:-:| into alignments, or nil when the line is not one.
func parseDelimiterRow(line []byte) []east.Alignment {
	if w, _ := util.IndentWidth(line, 0); w > 3 {
		return nil
	}
	for _, b := range line {
		if !util.IsSpace(b) && b != '-' && b != '|' && b != ':' {
			return nil
		}
	}
	cols := bytes.Split(line, []byte{'|'})
	if len(cols) > 0 && util.IsBlank(cols[0]) {
		cols = cols[1:]
	}
	if len(cols) > 0 && util.IsBlank(cols[len(cols)-1]) {
		cols = cols[:len(cols)-1]
	}
	if len(cols) == 0 {
		return nil
	}
	aligns := make([]east.Alignment, 0, len(cols))
	for _, col := range cols {
		c := bytes.TrimSpace(col)
		left, right := bytes.HasPrefix(c, []byte(":")), bytes.HasSuffix(c, []byte(":"))
		dashes := bytes.Trim(c, ":")
		if len(dashes) == 0 || len(bytes.Trim(dashes, "-")) != 0 {
			return nil
		}
		switch {
		case left && right:
			aligns = append(aligns, east.AlignCenter)
		case left:
			aligns = append(aligns, east.AlignLeft)
		case right:
			aligns = append(aligns, east.AlignRight)
		default:
			aligns = append(aligns, east.AlignNone)
		}
	}
	return aligns
}

// newParser is CommonMark plus the GFM pieces above.
func newParser() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
			util.Prioritized(taskParser{}, 0), util.Prioritized(strikeParser{}, 500))...),
		parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
			util.Prioritized(tableTransformer{}, 200))...),
	)
}
