package api

// EventTaskStatus says a task's outcome was recorded: Thread is the task's thread, Status the
// task's new status (model.Task*). It comes after the thread.status of the turn's end, once
// the evidence is gathered; a view reads task.status again.
const EventTaskStatus = "task.status"
