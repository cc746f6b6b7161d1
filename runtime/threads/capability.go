package threads

import (
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/harness"
)

// Capability never widens through delegation: a thread created by a thread (an agent's
// delegate start, a marker block) runs with its author's sandbox and approval policy, or with
// a narrower approval policy it asks for (model.ApprovalWithin). A native author's policy is
// the one the App Server reported for it; one this runtime never loaded is taken at its
// narrowest. An external harness cannot be confined by codexhost, so a
// sandboxed author may create threads on one only when the operator opted it in.

// narrowToAuthor sets req to the author's policy, or refuses the child.
func (s *Service) narrowToAuthor(c Child, hs harness.Harness, req *harness.StartRequest) error {
	if c.Parent == "" || c.ParentHarness != model.NativeHarness {
		return nil // a client's child, or an external author's: nothing confines the author
	}
	pol, ok := s.deps.Harnesses.Native().PolicyOf(c.Parent)
	if !ok {
		pol = harness.ThreadPolicy{Sandbox: harness.SandboxReadOnly}
	}
	if hs.Kind() == model.HarnessNative {
		req.Sandbox, req.Approval = pol.Sandbox, pol.Approval
		if c.Approval == "" {
			return nil
		}
		if !model.ApprovalWithin(c.Approval, pol.Approval) {
			return model.Errorf(model.CodePermissionDenied,
				"leave approval out (the child runs under its author's policy) or ask for a narrower one: never < untrusted < on-request",
				"thread %s runs under approval policy %q, narrower than %q", c.Parent, approvalName(pol.Approval), c.Approval).
				WithDetail("authorApproval", approvalName(pol.Approval))
		}
		req.Approval = c.Approval
		return nil
	}
	if !pol.Sandboxed() || s.opts.Config().Harnesses[hs.Name()].AllowSandboxedCallers {
		return nil
	}
	return model.Errorf(model.CodePermissionDenied,
		"create a native thread instead (--harness codex), or ask the user to set allow_sandboxed_callers = true under [harnesses."+hs.Name()+"] in config.toml",
		"thread %s runs in Codex's %s sandbox, and harness %s runs commands codexhost cannot sandbox", c.Parent, pol.Sandbox, hs.Name()).
		WithDetail("authorSandbox", pol.Sandbox)
}

// approvalName is a reported approval policy, never when none was reported.
func approvalName(policy string) string {
	if policy == "" {
		return model.ApprovalNever
	}
	return policy
}
