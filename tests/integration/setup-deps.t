#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# scripts/setup-deps while another apt or dpkg holds the package lock: it says
# so and waits, then installs; or gives up at its bound with exit 75.  The
# real apt is never run: a stand-in apt-get and dpkg-query come first in PATH,
# and the stand-in refuses a lock held with flock(1) the way apt does.
. tests/integration/tap.sh

fake=$tmp/fake-bin
mkdir -p "$fake"
export FAKE_APT_LOCK=$tmp/apt.lock FAKE_APT_LOG=$tmp/apt.log
touch "$FAKE_APT_LOCK"
cat > "$fake/dpkg-query" <<'EOF'
#!/bin/sh
# Nothing is installed.
printf 'unknown ok not-installed'
EOF
cat > "$fake/apt-get" <<'EOF'
#!/bin/sh
# apt's refusal, word for word where setup-deps reads it.
if ! flock -n "$FAKE_APT_LOCK" true; then
	echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2
	exit 100
fi
echo "$*" >> "$FAKE_APT_LOG"
EOF
chmod +x "$fake/dpkg-query" "$fake/apt-get"

# hold_lock: another "apt" takes the lock, and returns once it has it; the
# lock is let go by writing a line to $tmp/release.
mkfifo "$tmp/ready" "$tmp/release"
hold_lock() {
	flock "$FAKE_APT_LOCK" sh -c "echo locked > '$tmp/ready'; read -r _ < '$tmp/release'" &
	holder=$!
	read -r _ < "$tmp/ready"
}

# 1. The lock is let go while setup-deps waits: it goes on and installs.
: > "$FAKE_APT_LOG"
hold_lock
mkfifo "$tmp/err1"
PATH=$fake:$PATH PMS_APT_LOCK_WAIT=120 scripts/setup-deps > /dev/null 2> "$tmp/err1" &
setup=$!
exec 7< "$tmp/err1"
said=
while read -r -u 7 line; do
	echo "$line" >> "$tmp/err1.log"
	case $line in *"holds the package lock"*) said=$line; break ;; esac
done
[ -n "$said" ]; ok $? "it says another apt holds the lock, and waits: $said"
echo "$said" | grep -q "held by process 4242 (apt-get)"; ok $? "it names the holder apt named"
echo go > "$tmp/release"
wait "$holder"
cat <&7 >> "$tmp/err1.log"
wait "$setup"
rc=$?
exec 7<&-
[ "$rc" -eq 0 ]; ok $? "once the lock is free it finishes, exit 0 (got $rc)"
grep -q "^-o DPkg::Lock::Timeout=[0-9]* update" "$FAKE_APT_LOG" &&
	grep -q "^-o DPkg::Lock::Timeout=[0-9]* install .*libjson-c-dev" "$FAKE_APT_LOG"
ok $? "it then updated and installed, with dpkg's own lock timeout: $(tr '\n' ';' < "$FAKE_APT_LOG")"
diag < "$tmp/err1.log"

# 2. The lock is never let go: it gives up at its bound, exit 75, and says so.
: > "$FAKE_APT_LOG"
hold_lock
PATH=$fake:$PATH PMS_APT_LOCK_WAIT=1 timeout 60 scripts/setup-deps > /dev/null 2> "$tmp/err2"
rc=$?
echo go > "$tmp/release"
wait "$holder"
[ "$rc" -eq 75 ]; ok $? "held past PMS_APT_LOCK_WAIT: exit 75, not apt's 100 (got $rc)"
grep -q "gave up after 1s waiting for the package lock" "$tmp/err2"
ok $? "and it says it gave up: $(tail -1 "$tmp/err2")"
[ ! -s "$FAKE_APT_LOG" ]; ok $? "nothing was installed"

# 3. A bad bound is a usage error.
PATH=$fake:$PATH PMS_APT_LOCK_WAIT=soon scripts/setup-deps > /dev/null 2> "$tmp/err3"
[ $? -eq 64 ]; ok $? "PMS_APT_LOCK_WAIT=soon: exit 64: $(head -1 "$tmp/err3")"

done_testing
