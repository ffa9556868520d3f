#!/usr/bin/env bash
# docs-screenshots.sh — copies the browser tests' screenshots that docs/screenshots.md
# shows from tests/e2e/artifacts/ (written by `make test`) into docs/screenshots/.
# Run it after `make test` when the pages changed; a missing screenshot is an error.
set -euo pipefail
cd "$(dirname "$0")/.."
src=tests/e2e/artifacts
dst=docs/screenshots
mkdir -p "$dst"
shots=(
  01-lobby 03-first-turn 09-replay-end 05b-looking-back
  arkadia-02-first-turn phone-desktop-khronos-1280x800 phone-desktop-clans-1280x800 phone-desktop-arkadia-1280x800
  phone-sideways-clans phone-sideways-arkadia phone-sideways-khronos
  phone-clans-1-lobby phone-clans-2-first-turn phone-clans-4-result
  phone-arkadia-2-first-turn phone-arkadia-4-mid-game phone-arkadia-5-result phone-arkadia-7-replay
  phone-khronos-2-first-turn phone-khronos-3-hand-drawer phone-khronos-4-mid-game phone-khronos-6-scores-at-end
  phone-tablet-768x1024-arkadia phone-tablet-1024x768-khronos
  rules-khronos-844x390 rules-clans-desktop rules-khronos-phone
  review-03-graph review-07-phone
  ratings-leaderboard-1280 ratings-player-1280 ratings-leaderboard-390 ratings-player-es-390
  phone-es-clans-in-play phone-es-arkadia-in-play phone-es-khronos-in-play
  lobby-es-desktop-clans lobby-es-desktop-arkadia lobby-es-desktop-khronos
  accounts-signup-phone accounts-me-phone accounts-me-desktop accounts-account-desktop
)
for s in "${shots[@]}"; do
  [ -f "$src/$s.png" ] || { echo "docs-screenshots: $src/$s.png is missing (run make test first)" >&2; exit 1; }
  cp "$src/$s.png" "$dst/$s.png"
done
echo "copied ${#shots[@]} screenshots to $dst"
