#!/bin/sh
# hansard's review of a change as Markdown: printed, or posted as a pull-request comment.
#
#   RANGE        the change, A..B or A...B (default: hansard's own: this branch against its
#                upstream's merge base, else against the default branch)
#   POST_TO      a pull request's number: post the body there with `gh pr comment` (needs
#                GH_TOKEN); unset: print it
#   REVIEW_BODY  where the body is written (default: a temporary file)
#   HANSARD_TEAM_URL  a team member's connection string (a CI secret): the team's sessions too
#
# In CI there are no agent homes: the story comes from what the repository carries (Entire's
# checkpoint refs, git-ai notes, commit trailers, Agent Trace files), which `hansard index` of
# the clone reads, and from the team store when its connection string is given. The review says
# which sources it read and which it could not.
set -eu
top=$(git rev-parse --show-toplevel)
if [ -n "${HANSARD_TEAM_URL:-}" ]; then
  hansard team join "$HANSARD_TEAM_URL" >&2 && hansard team pull >&2 || echo "hansard: the team store could not be read" >&2
fi
hansard index --quiet "$top" >&2
body=${REVIEW_BODY:-$(mktemp)}
if [ -n "${RANGE:-}" ]; then
  hansard review "$RANGE" --markdown --repo "$top" > "$body"
else
  hansard review --markdown --repo "$top" > "$body"
fi
if [ -n "${POST_TO:-}" ]; then
  gh pr comment "$POST_TO" --body-file "$body"
else
  cat "$body"
fi
