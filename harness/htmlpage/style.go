package htmlpage

// Style is the shared stylesheet. Its conventions, which every page follows:
//   - table cells are right-aligned numbers unless marked class="text"
//     (names, questions, reasons), and the first column is the row's name;
//     a cell wraps at its spaces, a text cell (names, ids, questions) also
//     inside a long word (overflow-wrap:anywhere), never a number; below
//     1000 px tables set smaller and tighter,
//     so that the audit's widest table fits an 800 px window (checked in
//     headless Chromium, cmd/vidscreen/reports_layout_test.go);
//   - a table that still cannot fit scrolls sideways inside its own box
//     (display:block) rather than widening the page;
//   - class="warn" is a finding the reader must not miss (a release still
//     exploitable, a verifier that flags everything), class="alarm" marks a
//     table row that is wrong in a way the page's text explains (a false
//     alarm), class="flag" marks a row to look at twice (an attacker that
//     abstained everywhere), class="ns" is a value that is not significant;
//   - colours are from Okabe and Ito's colour-blind safe set ("Color
//     Universal Design", 2008), as the charts'.
const Style = `:root{--ink:#222;--muted:#555;--rule:#ddd;--head:#f4f4f4;--warn:#fff4e5;--warn-edge:#d55e00;--alarm:#fde8e8;--flag:#fff9db}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;line-height:1.45;margin:2em auto;max-width:1360px;padding:0 1em;color:var(--ink)}
h1{font-size:1.7em;margin:.2em 0 .5em}h2{margin-top:1.6em}h3{margin:1.2em 0 .3em}
section{border-top:2px solid #333;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0 1em;display:block;max-width:100%;overflow-x:auto}
caption{caption-side:top;text-align:left;font-weight:600;padding:.2em 0 .4em;color:var(--muted)}
th,td{border-bottom:1px solid var(--rule);padding:.25em .5em;text-align:right;vertical-align:top;font-variant-numeric:tabular-nums;overflow-wrap:break-word}
th{background:var(--head)}
th:first-child,td:first-child,th.text,td.text{text-align:left}
td.text,td.q{overflow-wrap:anywhere}td.text{min-width:6em}td.q{min-width:12em;max-width:40em;text-align:left}
tr.alarm td{background:var(--alarm)}tr.flag td{background:var(--flag)}
.ns{color:#767676}.muted{color:var(--muted)}.note{font-size:.9em;color:var(--muted);max-width:60em}
.warn{background:var(--warn);border-left:4px solid var(--warn-edge);padding:.5em .8em;margin:1em 0}
dl.legend{font-size:.9em;color:var(--muted);display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em;max-width:60em;margin:.3em 0 1em}
dl.legend dt{font-weight:600;color:var(--ink)}dl.legend dd{margin:0}
.charts{display:flex;flex-wrap:wrap;gap:1em}.charts figure{margin:0;max-width:100%}
figure h3,figure h4{margin:.4em 0}figcaption{font-size:.85em;color:var(--muted);max-width:600px}
svg{max-width:100%;height:auto}
.bar{display:inline-block;height:.8em;background:#0072b2}
code{font-size:.92em}
@media (max-width:1000px){table{font-size:.78em}th,td{padding:.2em .3em}td.text,td.q{min-width:5em}}
@media (max-width:600px){body{margin:1em auto;padding:0 .6em}h1{font-size:1.4em}}
`
