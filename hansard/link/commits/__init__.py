"""What is true of commits and the sessions that made them, and keeping it: the tie rules
(``ties``: a pure join of what shell calls printed and ran to a history's commits), keeping
each repository's ties current with its HEAD (``kept``), and dating the edits of agents that
commit each change themselves by those commits (``own``). Their SQL is the store's
(``hansard.store.sqlite.commits``); `why` reads the kept ties (``hansard.answers.why.commits``).
"""
