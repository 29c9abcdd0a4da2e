#!/bin/sh
# A set-ID exec under -f: the kernel stops following it at its exec (the
# events are detached from an image that changes credentials), so the
# exec is seen, then an exit microseconds later; it is reported as set-ID,
# the run goes on, nothing counts as lost. Needs root (a root-owned set-UID
# copy of a leaf, run by nobody through setpriv).
. "$(dirname "$0")/lib.sh"

F=$FIXTURES/follow-tree
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	skip "needs root and setpriv"
	done_testing
	exit
fi
chmod 755 "$TMP"
cp "$F/leaf" "$TMP/suid-leaf"
chmod 4755 "$TMP/suid-leaf"
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$LDPROF" run -f --json -n 1 -w 0 --no-overhead "$F/spawn" 2 "$TMP/suid-leaf" >"$TMP/j" 2>"$TMP/e"
check "ldprof -f runs a set-UID child as nobody" test $? -eq 0
expect_eq "both set-UID execs are reported set-ID" "setuid setuid" \
	"$(json_eval "$TMP/j" "' '.join(e['kind'] for e in d['per_run'][0]['tree']['execs'] if e['comm'] == 'suid-leaf')")"
expect_eq "no event counts as lost" 0 "$(json_get "$TMP/j" '["per_run"][0]["tree"]["lost_events"]')"
done_testing
