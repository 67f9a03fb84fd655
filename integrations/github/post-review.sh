#!/usr/bin/env bash
# Posts the pull request review `contractlint review --output-github-review`
# wrote, as contractlint's one review of the pull request: an unchanged
# review is not posted again; a changed one takes the earlier one's place.
# GitHub cannot add comments to a submitted review, so with comments a new
# review is posted and the earlier ones are emptied (their stale
# suggestions deleted, their body a pointer to the new one); without
# comments the latest earlier review is updated in place.
#   usage: post-review.sh REVIEW.json [COUNTS.json]
# COUNTS.json is --output-json's report: with no findings and no earlier
# review nothing is posted. Reads GH_TOKEN (pull-requests: write),
# GITHUB_API_URL, GITHUB_REPOSITORY and GITHUB_EVENT_PATH, as a workflow
# step has them. A token that may not review (a fork's) only warns.
set -uo pipefail
review=${1:?usage: post-review.sh REVIEW.json [COUNTS.json]}
counts=${2:-}
event="${GITHUB_EVENT_PATH:-/dev/null}"
# Each jq and curl start costs a runner tens of milliseconds: one jq reads
# what several questions need.
pr='' sha=''
{ read -r pr; read -r sha; } < <(jq -r '.pull_request.number // "", .pull_request.head.sha // ""' "$event" 2>/dev/null) || true
if [ -z "$pr" ] || [ ! -s "$review" ]; then
  echo "contractlint: no pull request or no review; no review posted"
  exit 0
fi
api="${GITHUB_API_URL:-https://api.github.com}/repos/$GITHUB_REPOSITORY/pulls"
marker='<!-- contractlint:review -->'
read -r digest _ < <(sha256sum < "$review")
digest="${digest:0:32}"
stamp="<!-- contractlint:digest:$digest -->"
tmp="$(mktemp -d "${RUNNER_TEMP:-/tmp}/contractlint-review.XXXXXX")"
errs="$tmp/errors"

# call METHOD PATH [JSON on standard input]: the answer on standard output;
# PATH is below the repository's pulls.
call() {
  local data=()
  [ "$1" = POST ] || [ "$1" = PUT ] && data=(--data-binary @-)
  curl -sS --fail-with-body -X "$1" "${data[@]}" \
    -H "Authorization: Bearer ${GH_TOKEN:-}" -H "Accept: application/vnd.github+json" \
    -H "X-GitHub-Api-Version: 2022-11-28" "$api$2" 2>> "$errs"
}
cannot() {
  # The API's answer is indented: a line of it is never a workflow command.
  sed 's/^/  github: /' "$errs"
  echo "::warning title=contractlint::could not $1 the pull request review: the job's token needs pull-requests: write (a pull request from a fork gets a read-only token); the job summary has the whole report"
  exit 0
}

reviews="$(call GET "/$pr/reviews?per_page=100")" || cannot read
# Our earlier reviews' ids, one a line, then whether the latest of them
# carries this review's digest.
found="$(jq -r --arg m "$marker" --arg s "$stamp" \
  '[.[] | select(.body | startswith($m))] | (.[].id), (last.body // "" | contains($s))' <<< "$reviews")"
unchanged="${found##*$'\n'}"
ours=''
[ "$found" = "$unchanged" ] || ours="${found%$'\n'*}"
latest="${ours##*$'\n'}"
if [ -n "$latest" ] && [ "$unchanged" = true ]; then
  echo "contractlint: the review is unchanged since review $latest; not posted again"
  exit 0
fi
if [ -z "$latest" ] && [ -n "$counts" ] && [ "$(jq -r '.summary.findings' "$counts" 2>/dev/null)" = 0 ]; then
  echo "contractlint: no findings and no earlier review; no review posted"
  exit 0
fi

# The earlier reviews' suggestions are stale: each is deleted.
for id in $ours; do
  for c in $(call GET "/$pr/reviews/$id/comments?per_page=100" | jq -r '.[].id'); do
    call DELETE "/comments/$c" > /dev/null || cannot update
  done
done

if [ -n "$latest" ] && [ "$(jq '.comments | length' "$review")" = 0 ]; then
  jq --arg s "$stamp" '{body: (.body + "\n" + $s)}' "$review" | call PUT "/$pr/reviews/$latest" > /dev/null || cannot update
  echo "contractlint: updated review $latest"
  exit 0
fi
jq --arg s "$stamp" --arg sha "$sha" '.body += "\n" + $s | if $sha != "" then .commit_id = $sha else . end' "$review" > "$tmp/review.json"
if ! new="$(call POST "/$pr/reviews" < "$tmp/review.json")"; then
  # A comment on a line GitHub's diff does not show fails the whole review
  # (422): post the comments in the body instead.
  jq '.body += "\n\nThese could not be placed on the diff:\n\n" + ([.comments[] | "- `\(.path):\(.line)` " + .body] | join("\n")) | .comments = []' \
    "$tmp/review.json" > "$tmp/flat.json"
  new="$(call POST "/$pr/reviews" < "$tmp/flat.json")" || cannot post
fi
id="$(jq -r '.id' <<< "$new")"
if [ -n "$ours" ]; then
  superseded="$(jq -n --arg b "$marker"$'\n'"Superseded by a later contractlint review of this pull request." '{body: $b}')"
  for old in $ours; do
    call PUT "/$pr/reviews/$old" <<< "$superseded" > /dev/null || cannot update
  done
fi
echo "contractlint: posted review $id"
