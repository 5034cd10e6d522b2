// Package triage decides what happens to one incoming mail before anyone
// sees it: "relevant" (becomes a card), "spam" (dropped, optionally
// trashed) or "skip" (left alone in the mailbox, no card).
//
// The decision is taken in a fixed order, and the step that decided is
// recorded in Decision.Path so that the card can say why:
//
//  1. the user's rules ("rule:<id>"), which always win;
//  2. built-in heuristics that read headers and labels only, never the body
//     ("heuristic:<name>");
//  3. an optional language model, the only step that reads the body, cut to
//     ModelBodyRunes characters ("model:<name>");
//  4. a default: relevant, so that nothing is hidden without a reason
//     ("default").
//
// A model that fails makes Triage return a *RetryError: the item must stay
// unprocessed and be tried again; the pipeline never turns a failure into a
// silent verdict. The daily token budget of a scout is a hard cap: when it
// is spent the model step is skipped and the path says so.
//
// The package is shared by the relay and the desktop and imports only the
// standard library and the domain package. Message bodies are transient:
// nothing here writes them anywhere, and Message's String and LogValue leave
// the body out so that a stray log line cannot carry it.
package triage
