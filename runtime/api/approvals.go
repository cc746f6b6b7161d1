package api

import "github.com/codexhost/codexhost/model"

// Approval methods: the approval requests of native threads, held until one owner answers.
const (
	MethodApprovalList   = "approval.list"
	MethodApprovalTake   = "approval.take"
	MethodApprovalAnswer = "approval.answer"
)

// EventApproval says an approval was asked, taken or decided: Thread is the asking thread,
// Status its state, Approval the record.
const EventApproval = "approval.changed"

// ApprovalListParams lists approvals; Pending keeps only those waiting.
type ApprovalListParams struct {
	Pending bool `json:"pending,omitempty"`
}

// ApprovalListResult lists the approvals the caller may see, pending first.
type ApprovalListResult struct {
	Approvals []model.Approval `json:"approvals" doc:"pending first, oldest first; then the recently decided"`
}

// ApprovalTakeParams takes the lease of one approval.
type ApprovalTakeParams struct {
	ID string `json:"id"`
}

// ApprovalAnswerParams decides one approval. Fence 0 takes the lease and answers at once.
type ApprovalAnswerParams struct {
	ID       string `json:"id"`
	Decision string `json:"decision"`
	Fence    int64  `json:"fence,omitempty"`
}

// ApprovalResult is one approval after the call.
type ApprovalResult struct {
	Approval model.Approval `json:"approval"`
}
