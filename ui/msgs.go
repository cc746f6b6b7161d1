package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/runtime/api"
)

// Messages from outside the program (the event relay) are built with the exported
// constructors; everything else stays inside the package.

// EventMsg wraps one runtime event for Program.Send.
func EventMsg(ev api.Event) tea.Msg { return eventMsg{ev: ev} }

// ConnectedMsg says the app (re)connected to the runtime at endpoint.
func ConnectedMsg(endpoint string) tea.Msg { return connStateMsg{connected: true, endpoint: endpoint} }

// DisconnectedMsg says the connection to the runtime was lost and why.
func DisconnectedMsg(err error) tea.Msg { return connStateMsg{err: err} }

type eventMsg struct{ ev api.Event }

type connStateMsg struct {
	connected bool
	endpoint  string
	err       error
}

// paneID names a pane; the focus ring follows this order.
type paneID int

const (
	paneFleet paneID = iota
	paneTranscript
	paneLineage
	paneWatches
	paneUndeliverable
	paneTasks
	paneCount
)

// paneMsg addresses a message to one pane: the two watch lists share a type, so their replies
// must not reach each other.
type paneMsg struct {
	to    paneID
	inner tea.Msg
}

// threadSelectedMsg asks the root to show a thread in the transcript and lineage panes.
type threadSelectedMsg struct {
	ref   threadRef
	focus bool // also focus the transcript
}

// openThreadMsg asks the root to find out how to read a thread known only by id, then select it.
type openThreadMsg struct{ id string }

// statusMsg asks the root to show a line in the status bar.
type statusMsg struct {
	text  string
	level level
}

type level int

const (
	levelInfo level = iota
	levelOK
	levelError
)

func emit(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

func status(l level, text string) tea.Cmd { return emit(statusMsg{text: text, level: l}) }

// hostsHealthMsg carries the catalog hosts to the status bar.
type hostsHealthMsg struct{ hosts []api.CatalogHost }

// threadChangedMsg tells the panes that an action changed a thread.
type threadChangedMsg struct {
	id       string
	archived bool
	created  bool   // a delegation made it
	parent   string // its parent, for created threads
}

// watchAddedMsg tells the watch lists that a watch was registered.
type watchAddedMsg struct{}
