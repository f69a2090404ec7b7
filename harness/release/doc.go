// Package release composes a benchmark from a screened pool and releases it
// under a name that says exactly how it was made (Video-Index section 5).
//
// Data moves through it in four steps:
//
//   - A Pool holds the screened candidates: each item with what selection
//     reads (its source, video, visual scene, question template, duration
//     group, event type and the attackers' verdicts and margins on it).
//     FromScreen builds it from a screen (package screen), Scenes clustering
//     the videos per duration group as Video-Index's pool/scenes.py.
//   - Select draws a coverage composition for a Query by the rules of
//     Video-Index's pool/select.py: a coverage pass over (source, task),
//     then round-robin over duration groups, event types and sources, under
//     caps (one item per video, one video per visual scene, five items per
//     question template of a source, 5% of the budget per source when there
//     are several; scarce cells exempt) that each duration group relaxes one
//     step at a time when it cannot fill its share, each
//     relaxation recorded with its reason. Hardest takes the K hardest items
//     per capability group instead, one per video, ranked by the maximum
//     percentile over the screening steps' margins (a missing one counting as
//     the step's largest).
//   - Gate is the red-team gate: a RedTeam attacks the selection as its own
//     pool, what it solves is dropped and refilled from the pool, for a
//     bounded number of rounds; the last attack's figures are the release's
//     residual exploitability.
//   - Compose runs the gate and registers the result: each item's option
//     order randomised (seeded), the released items and the lockfile (pool
//     snapshot hash, query, selector version, seed, attackers, their versions
//     and configuration, rounds), whose hash names the release; Write puts
//     them, with a report in Markdown and HTML, in a directory.
//
// Everything here is a pure function of the pool, the query and the seed:
// the same inputs give the same release, byte for byte, at any worker count.
package release
