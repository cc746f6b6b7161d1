package api

import (
	"context"
	"encoding/json"
)

// Requester sends one request and decodes its result into out (nil to discard it). *Client
// is one; so is any connection that wraps one (an operator session, a connection dialed on
// first use). Faces call through the typed methods below, never with a method name.
type Requester interface {
	Call(ctx context.Context, method string, params, out any) error
}

// EventRequester is a Requester that also hands over a call's own events (Client.CallEvents).
type EventRequester interface {
	Requester
	CallEvents(ctx context.Context, method string, params, out any, fn func(Event)) error
}

// Method is one runtime API method with the params it takes and the result it answers.
type Method[P, R any] struct{ Name string }

// Call sends p and decodes the answer as R.
func (m Method[P, R]) Call(ctx context.Context, c Requester, p P) (R, error) {
	var r R
	err := c.Call(ctx, m.Name, wireParams(p), &r)
	return r, err
}

// Streaming is a method that also sends the caller events of its own while it runs (Notify):
// per-host progress, install progress.
type Streaming[P, R any] struct{ Method[P, R] }

// CallEvents is Call, handing fn the call's own events, in order, before it returns.
func (m Streaming[P, R]) CallEvents(ctx context.Context, c EventRequester, p P, fn func(Event)) (R, error) {
	var r R
	err := c.CallEvents(ctx, m.Name, wireParams(p), &r, fn)
	return r, err
}

// wireParams is what goes on the wire: nothing for a method without params, as the server reads
// absent params as empty ones.
func wireParams(p any) any {
	if _, none := p.(struct{}); none {
		return nil
	}
	return p
}

// Described is a table entry as the tests that check the table see it.
type Described interface {
	MethodName() string
	// Zero returns pointers to fresh params and result values of the method's types.
	Zero() (params, result any)
}

// MethodName is the method's wire name.
func (m Method[P, R]) MethodName() string { return m.Name }

// Zero returns pointers to fresh params and result values of the method's types.
func (m Method[P, R]) Zero() (params, result any) {
	var p P
	var r R
	return &p, &r
}

// Every runtime API method, typed once. Three names (GetRuntimeInfo, GetCodexStatus,
// GetTaskResult) take a verb because their result types already hold the plain name.
var (
	Auth            = Method[AuthParams, AuthResult]{MethodAuth}
	EventsSubscribe = Method[struct{}, struct{}]{MethodEventsSubscribe}
	GetRuntimeInfo  = Method[struct{}, RuntimeInfo]{MethodRuntimeInfo}
	RuntimeForward  = Streaming[ForwardParams, json.RawMessage]{Method[ForwardParams, json.RawMessage]{MethodRuntimeForward}}

	HarnessList    = Method[struct{}, HarnessListResult]{MethodHarnessList}
	HarnessInspect = Method[HarnessInspectParams, HarnessInspectResult]{MethodHarnessInspect}
	DelegateStart  = Method[DelegateStartParams, DelegateStartResult]{MethodDelegateStart}
	ThreadRead     = Method[ThreadReadParams, ThreadReadResult]{MethodThreadRead}
	ThreadWait     = Method[ThreadWaitParams, ThreadReadResult]{MethodThreadWait}
	ThreadList     = Method[ThreadListParams, ThreadListResult]{MethodThreadList}
	ThreadSend     = Method[ThreadSendParams, ThreadSendResult]{MethodThreadSend}
	ThreadCancel   = Method[ThreadCancelParams, ThreadCancelResult]{MethodThreadCancel}
	ThreadWatch    = Method[ThreadWatchParams, WatchResult]{MethodThreadWatch}
	ThreadWatches  = Method[struct{}, WatchesResult]{MethodThreadWatches}
	ThreadVisible  = Method[ThreadVisibleParams, ThreadVisibleResult]{MethodThreadVisible}
	ThreadLineage  = Method[ThreadLineageParams, ThreadLineageResult]{MethodThreadLineage}
	ThreadMarkers  = Method[ThreadMarkersParams, ThreadMarkersResult]{MethodThreadMarkers}
	MarkersPrune   = Method[MarkersPruneParams, MarkersPruneResult]{MethodMarkersPrune}
	UsageSummary   = Method[UsageSummaryParams, UsageSummaryResult]{MethodUsageSummary}
	ClientEvents   = Method[ClientEventsParams, ClientEventsResult]{MethodClientEvents}

	CatalogHosts      = Method[struct{}, CatalogHostsResult]{MethodCatalogHosts}
	CatalogSessions   = Streaming[CatalogSessionsParams, CatalogSessionsResult]{Method[CatalogSessionsParams, CatalogSessionsResult]{MethodCatalogSessions}}
	CatalogTranscript = Method[CatalogTranscriptParams, CatalogTranscriptResult]{MethodCatalogTranscript}
	CatalogArchive    = Method[CatalogArchiveParams, CatalogArchiveResult]{MethodCatalogArchive}
	CatalogContinue   = Method[CatalogContinueParams, CatalogContinueResult]{MethodCatalogContinue}

	CompatEndpointProbe    = Method[CompatProbeParams, CompatProbeResult]{MethodCompatEndpointProbe}
	CompatSessionsList     = Method[CompatSessionsListParams, CompatSessionsListResult]{MethodCompatSessionsList}
	CompatSessionRead      = Method[CompatSessionReadParams, CompatSessionReadResult]{MethodCompatSessionRead}
	CompatSessionSend      = Method[CompatSessionSendParams, CompatSessionSendResult]{MethodCompatSessionSend}
	CompatSessionInterrupt = Method[CompatSessionInterruptParams, CompatSessionInterruptResult]{MethodCompatSessionInterrupt}

	NodeDescribe = Method[struct{}, NodeDescribeResult]{MethodNodeDescribe}
	// NodeInvoke answers what the invoked command answers, which the caller decodes.
	NodeInvoke = Method[NodeInvokeParams, json.RawMessage]{MethodNodeInvoke}

	HandoffCreate = Method[HandoffCreateParams, HandoffCreateResult]{MethodHandoffCreate}
	HandoffList   = Method[HandoffListParams, HandoffListResult]{MethodHandoffList}
	HandoffShow   = Method[HandoffShowParams, HandoffShowResult]{MethodHandoffShow}
	TaskStart     = Method[TaskStartParams, TaskStartResult]{MethodTaskStart}
	TaskStatus    = Method[TaskStatusParams, TaskStatusResult]{MethodTaskStatus}
	GetTaskResult = Method[TaskResultParams, TaskResult]{MethodTaskResult}
	TaskCancel    = Method[TaskCancelParams, TaskInfo]{MethodTaskCancel}
	TaskConfirm   = Method[TaskConfirmParams, TaskStartResult]{MethodTaskConfirm}
	SkillRoute    = Method[SkillRouteParams, SkillRouteResult]{MethodSkillRoute}
	SkillRead     = Method[SkillReadParams, SkillReadResult]{MethodSkillRead}
	SkillBundle   = Method[SkillBundleParams, SkillBundleResult]{MethodSkillBundle}

	ApprovalList   = Method[ApprovalListParams, ApprovalListResult]{MethodApprovalList}
	ApprovalTake   = Method[ApprovalTakeParams, ApprovalResult]{MethodApprovalTake}
	ApprovalAnswer = Method[ApprovalAnswerParams, ApprovalResult]{MethodApprovalAnswer}

	StoreBackup    = Method[StoreBackupParams, StoreBackupResult]{MethodStoreBackup}
	GetCodexStatus = Method[struct{}, CodexStatus]{MethodCodexStatus}
	CodexInstall   = Streaming[CodexInstallParams, CodexInstallResult]{Method[CodexInstallParams, CodexInstallResult]{MethodCodexInstall}}
)

// Methods lists the table, for the tests that hold it to the method names and the routes.
func Methods() []Described {
	return []Described{
		Auth, EventsSubscribe, GetRuntimeInfo, RuntimeForward,
		HarnessList, HarnessInspect, DelegateStart, ThreadRead, ThreadWait, ThreadList, ThreadSend, ThreadCancel,
		ThreadWatch, ThreadWatches, ThreadVisible, ThreadLineage, ThreadMarkers, MarkersPrune, UsageSummary, ClientEvents,
		CatalogHosts, CatalogSessions, CatalogTranscript, CatalogArchive, CatalogContinue,
		CompatEndpointProbe, CompatSessionsList, CompatSessionRead, CompatSessionSend, CompatSessionInterrupt,
		NodeDescribe, NodeInvoke,
		HandoffCreate, HandoffList, HandoffShow, TaskStart, TaskStatus, GetTaskResult, TaskCancel, TaskConfirm,
		SkillRoute, SkillRead, SkillBundle,
		ApprovalList, ApprovalTake, ApprovalAnswer,
		StoreBackup, GetCodexStatus, CodexInstall,
	}
}
