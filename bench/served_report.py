#!/usr/bin/env python3
"""bench/served_report.py: the lines bench/served.sh prints from
servedclient's JSON reports.

    served_report.py show < report.json       one report as a line of figures
    served_report.py prefix GROUPED ITEM [SERIAL]  computed prefill tokens, both orders (and one at a time)
    served_report.py resume RESUMED FIRST     the resumed run against the first
"""
import json
import sys


def show(r):
    line = (f"  {r['requests']:,} requests in {r['wall_s']:.1f} s: {r['requests_per_s']:,.0f}/s of the servers' "
            f"{r['capacity_requests_per_s']:,.0f}/s ({100 * r['busy']:.1f}% busy; per server {r['utilization']}, "
            f"max in flight {r['max_running']}); client {r['cpu_ms_per_request']:.3f} ms CPU/request, "
            f"peak RSS {r['peak_rss_mib']:.0f} MiB; prefill tokens {r['prompt_tokens']:,} = computed "
            f"{r['computed_tokens']:,} + cached {r['cached_tokens']:,}; failed {r['failed']}, "
            f"asked twice {r['asked_twice']}")
    if "busy_share" in r and r["first_s"] >= 0:  # a resumed run's servers also count the killed run's time
        line += (f"; servers x wall: {100 * r['busy_share']:.1f}% computing, {100 * r['gap_share']:.1f}% idle between a server's"
                 f" first request and last reply, {100 * r['edge_share']:.1f}% idle before or after (first request at"
                 f" {r['first_s']:.2f} s, last reply {r['last_s']:.2f} s before the end)")
    if r.get("checksum"):
        line += f", checksum {r['checksum']}"
    print(line)


def main():
    cmd = sys.argv[1]
    if cmd == "show":
        show(json.loads(sys.stdin.read()))
    elif cmd == "prefix":
        g, i = (json.load(open(p)) for p in sys.argv[2:4])
        print(f"  computed prefill tokens: item order {i['computed_tokens']:,}, grouped {g['computed_tokens']:,}: "
              f"{i['computed_tokens'] / g['computed_tokens']:.2f}x fewer grouped")
        if len(sys.argv) > 4:
            # The most grouping can save, measured: the same items asked
            # one at a time in grouped order, so that every later item of
            # a video finds its first's prefix (the system turn, the
            # frames and the template's words up to the question) cached.
            s = json.load(open(sys.argv[4]))
            n = g["requests"]
            print(f"  the most it can save (one request at a time): {s['computed_tokens']:,} computed"
                  f" ({(g['prompt_tokens'] - s['computed_tokens']) / (n - n / 4):,.0f} tokens shared by a video's later prompts, of"
                  f" {g['prompt_tokens'] / n:,.0f}, {g['image_tokens'] / n:,.0f} of them frames), {i['computed_tokens'] / s['computed_tokens']:.2f}x"
                  f" fewer than item order; grouped order at 64 in flight got"
                  f" {(i['computed_tokens'] - g['computed_tokens']) / (i['computed_tokens'] - s['computed_tokens']):.0%} of that saving")
    elif cmd == "resume":
        r, first = (json.load(open(p)) for p in sys.argv[2:4])
        same = "the same as" if r["checksum"] == first["checksum"] else "DIFFERENT from"
        # Requests past one a prompt over both runs (the servers' counts
        # run on across the kill): a server counts the bodies it received
        # twice itself, but a request sent again may go to another server.
        extra = r["requests"] - r["prompts"]
        print(f"  resumed: {r['store_replies_at_start']:,} replies read back in {r['store_load_s']:.2f} s; "
              f"{r['requests']:,} requests for {r['prompts']:,} prompts over both runs: {extra:,} asked twice, "
              f"at most the {r['workers']} x 64 in flight at the kill may be (sent, never stored); "
              f"answers {same} the run without a kill")
    elif cmd == "checksums":
        a, b = (json.load(open(p))["checksum"] for p in sys.argv[2:4])
        print(f"  the same answers in both runs ({a})" if a == b else f"  ANSWERS DIFFER: {a} against {b}")
    else:
        sys.exit(f"served_report.py: unknown command {cmd}")


main()
