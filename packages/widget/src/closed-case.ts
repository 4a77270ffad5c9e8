/**
 * A closed case stays in the widget (its conversation, and the rating prompt until rated) this
 * long after it closed, by the visitor's clock, across reloads: then a visit starts with an empty
 * conversation. docs/guides/widget.md says so.
 */
export const CLOSED_CASE_SHOWN_MS = 24 * 60 * 60 * 1000
