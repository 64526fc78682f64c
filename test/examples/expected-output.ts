/** What the article's reference script prints for its eight scenarios (a fact, kept here so tests never read ../shared). */
export const EXPECTED = `
1. webhook delivered twice
   first: True  retry: False  rows: 1
2. two workers ask for the lease at the same time
   A: 1  B: None
3. three quick chat messages
   events in one run: 3
4. A stalls mid-run; B takes over; A wakes up
   B before A's lease expires: None
   B after expiry: gen 2  re-claims ['msg-3']
   A renews after both leases lapsed: gen 3
   A finishes its old claim (gen 1 ): False
   msg-3: ('done', 2)  outbox rows: 1
5. a poison event arrives together with a healthy one
   W0 claimed ['poison', 'healthy'] and crashed
   W1 claimed ['poison'] and crashed
   W2 claimed ['poison'] and crashed
   W3 claimed ['healthy'] and finished
   W4 claimed [] and finished
   poison: ('dead', 3)  healthy: ('done', 2)
6. timers: a second scheduler pass, a replay, a three-day outage
   pass 1: 1  pass 2: 0
   replay of the same occurrence: 1 due, 1 event total
   after the outage: events total 2  skipped 3  late by 10 min  next due in 23.8 h
7. approvals with a four-hour window
   881: expiry ran at 5h, yes at 6h -> expired
   882: yes at 5h, scheduler not run yet -> expired
   883: yes at 1h -> yes  second tap no at 2h -> yes
   883 after its expiry timer fired: yes
   never requested -> unknown
8. outbox: three updates inside an hour
   sends: ['update 0', 'update 1 | update 2']
`.trim().split('\n');
