#!/usr/bin/env bash
# files_test.sh - every file tcgen writes goes through one writer
# (runtime/file.h), which treats a path as the shell's `>` would: a device
# or a FIFO is written in place (never replaced by a regular file),
# /dev/stdout reaches the pipe, a symbolic link keeps pointing at its
# target, which is replaced with its mode and owner kept; a lock file
# planted as a link is refused and nothing is created at its target; a
# wisdom file writable in a directory that is not is updated in place (as
# an ordinary user, when run as root); -o is written when the wisdom cannot
# be. Ends with "files: N passed, N failed".
set -u
TCGEN=${TCGEN:-build/tcgen}
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
X='C[a,b] = A[a,i] * B[i,b]'
S=a=b=8,i=4
is_c() { grep -q "int contraction(" "$1"; } # an emitted file, whole

# 1. A character device stays one. Root may make one (mknod); as an
# ordinary user /dev/null itself is the device, and cannot be replaced.
dev=/dev/null
mknod -m 666 "$tmp/null" c 1 3 2>/dev/null && dev=$tmp/null
"$TCGEN" "$X" "$S" -q -o "$dev" 2>"$tmp/err" && ok || bad "-o $dev: $(cat "$tmp/err")"
[ -c "$dev" ] && ok || bad "-o $dev: no longer a character device: $(ls -l "$dev")"
[ -c /dev/null ] && ok || bad "/dev/null is not a character device"
"$TCGEN" "$X" "$S" -q -o "$dev" --fortran "$dev" 2>"$tmp/err" && [ -c "$dev" ] && ok \
    || bad "--fortran $dev: $(cat "$tmp/err")"

# 2. A FIFO with a reader gets the text, and stays a FIFO.
mkfifo "$tmp/fifo"
cat "$tmp/fifo" > "$tmp/from_fifo" &
reader=$!
"$TCGEN" "$X" "$S" -q -o "$tmp/fifo" 2>"$tmp/err" && ok || bad "-o FIFO: $(cat "$tmp/err")"
wait "$reader"
[ -p "$tmp/fifo" ] && ok || bad "-o FIFO: no longer a FIFO"
is_c "$tmp/from_fifo" && ok || bad "-o FIFO: the reader got no C ($(wc -c < "$tmp/from_fifo") bytes)"

# Wisdom is read, merged and written back: a FIFO there is refused, not waited on.
timeout 20 "$TCGEN" "$X" "$S" -q --wisdom "$tmp/fifo" -o "$tmp/wfifo.c" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "wisdom file '$tmp/fifo' is not a regular file" "$tmp/err" && ok \
    || bad "--wisdom FIFO: exit $rc: $(cat "$tmp/err")"

# So is the machine profile: a FIFO there is measured around, not waited on.
mkdir -p "$tmp/fifo_cache/tcgen"
name=$("$TCGEN" info --format tsv 2>/dev/null | awk '$1 == "#" && $2 == "profile" { print $3 }')
mkfifo "$tmp/fifo_cache/tcgen/${name##*/}"
XDG_CACHE_HOME=$tmp/fifo_cache timeout 60 "$TCGEN" "$X" "$S" -o "$tmp/pfifo.c" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && is_c "$tmp/pfifo.c" && grep -q "cannot save $tmp/fifo_cache/tcgen/profile-.*(it is not a regular file)" "$tmp/err" \
    && ok || bad "profile FIFO: exit $rc: $(cat "$tmp/err")"

# 3. /dev/stdout: into a pipe, and into a file the shell opened.
"$TCGEN" "$X" "$S" -q -o /dev/stdout 2>"$tmp/err" | cat > "$tmp/piped"
is_c "$tmp/piped" && ok || bad "-o /dev/stdout into a pipe: $(cat "$tmp/err")"
"$TCGEN" "$X" "$S" -q -o /dev/stdout > "$tmp/redirected" 2>"$tmp/err"
is_c "$tmp/redirected" && ok || bad "-o /dev/stdout into a file: $(cat "$tmp/err")"
"$TCGEN" "$X" "$S" -q -o >(cat > "$tmp/substituted") 2>"$tmp/err" # /dev/fd/N
for _ in 1 2 3 4 5 6 7 8 9 10; do is_c "$tmp/substituted" && break; sleep 0.2; done
is_c "$tmp/substituted" && ok || bad "-o >(cat): $(cat "$tmp/err")"

# 4. A symbolic link: the link kept, its target replaced with its mode.
echo old > "$tmp/target.c"
chmod 640 "$tmp/target.c"
ln -s target.c "$tmp/link.c"
"$TCGEN" "$X" "$S" -q -o "$tmp/link.c" 2>"$tmp/err" && ok || bad "-o LINK: $(cat "$tmp/err")"
[ -L "$tmp/link.c" ] && [ "$(readlink "$tmp/link.c")" = target.c ] && ok || bad "-o LINK: the link was replaced"
is_c "$tmp/target.c" && ok || bad "-o LINK: the target was not written"
[ "$(stat -c %a "$tmp/target.c")" = 640 ] && ok || bad "-o LINK: mode $(stat -c %a "$tmp/target.c"), want 640"
ln -s "$tmp/dangling.c" "$tmp/dlink.c" # a link to nothing yet: its target is created
"$TCGEN" "$X" "$S" -q -o "$tmp/dlink.c" 2>"$tmp/err" && is_c "$tmp/dangling.c" && [ -L "$tmp/dlink.c" ] \
    && ok || bad "-o DANGLING-LINK: $(cat "$tmp/err")"
# A symbolic link to a shared wisdom file: both runs' decisions reach the target.
ln -s team.wisdom "$tmp/my.wisdom"
"$TCGEN" "$X" a=b=9,i=4 -q --wisdom "$tmp/my.wisdom" -o "$tmp/w1.c" 2>"$tmp/err"
"$TCGEN" "$X" a=b=10,i=4 -q --wisdom "$tmp/my.wisdom" -o "$tmp/w2.c" 2>>"$tmp/err"
[ -L "$tmp/my.wisdom" ] && [ "$(grep -vc '^#' "$tmp/team.wisdom")" -eq 2 ] && ok \
    || bad "--wisdom LINK: $(cat "$tmp/err") $(ls -l "$tmp"/*.wisdom)"
ls "$tmp" | grep -q '\.tmp\.' && bad "a temporary was left: $(ls "$tmp")" || ok

# 5. A lock file planted as a link is refused; nothing appears at its
# target; -o is still written, the wisdom failure being a warning.
ln -s "$tmp/victim" "$tmp/w.wisdom.lock"
"$TCGEN" "$X" "$S" --wisdom "$tmp/w.wisdom" -o "$tmp/locked.c" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && ok || bad "planted lock: exit $rc, want 0 (a warning)"
grep -q "warning: wisdom not saved: refusing the lock file '$tmp/w.wisdom.lock': it is a symbolic link" \
    "$tmp/err" && ok || bad "planted lock: no message naming it: $(cat "$tmp/err")"
[ -e "$tmp/victim" ] && bad "planted lock: a file was created at the link's target" || ok
is_c "$tmp/locked.c" && ok || bad "planted lock: -o was not written"
# A lock file with another name (a hard link): refused as well.
echo keep > "$tmp/other"
ln "$tmp/other" "$tmp/h.wisdom.lock"
"$TCGEN" "$X" "$S" --wisdom "$tmp/h.wisdom" -o "$tmp/hard.c" 2>"$tmp/err"
grep -q "refusing the lock file '$tmp/h.wisdom.lock': it is not a plain file of its own" "$tmp/err" \
    && [ "$(cat "$tmp/other")" = keep ] && is_c "$tmp/hard.c" && ok || bad "hard-linked lock: $(cat "$tmp/err")"
# A wisdom file that cannot be made (its parent is a file): -o is written.
touch "$tmp/plain"
"$TCGEN" "$X" "$S" -q --wisdom "$tmp/plain/w.wisdom" -o "$tmp/nowisdom.c" 2>"$tmp/err" \
    && is_c "$tmp/nowisdom.c" && ok || bad "unwritable wisdom: -o not written: $(cat "$tmp/err")"

# 6. As root: a file owned by another user keeps its owner; a wisdom file
# of mode 0666 in a root-owned 0755 directory is updated by that user.
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null && id nobody > /dev/null 2>&1; then
    touch "$tmp/theirs.c" && chown nobody "$tmp/theirs.c"
    "$TCGEN" "$X" "$S" -q -o "$tmp/theirs.c" 2>"$tmp/err" && is_c "$tmp/theirs.c" \
        && [ "$(stat -c %U "$tmp/theirs.c")" = nobody ] && ok \
        || bad "-o another user's file: $(cat "$tmp/err") $(ls -l "$tmp/theirs.c")"
    # nobody runs a copy of the command, with a copy of the machine profile
    chmod 755 "$tmp"
    mkdir -p "$tmp/bin" "$tmp/cache/tcgen" "$tmp/shared"
    cp "$TCGEN" "$tmp/bin/tcgen"
    "$TCGEN" "$X" a=b=11,i=4 -q --wisdom "$tmp/shared/w.wisdom" -o "$tmp/root.c" # the profile too
    cache=${XDG_CACHE_HOME:-$HOME/.cache}/tcgen
    cp "$cache"/profile-*.txt "$tmp/cache/tcgen/" 2>/dev/null
    chmod -R a+rX "$tmp/bin" "$tmp/cache"
    chmod 666 "$tmp/shared/w.wisdom"
    before=$(ls -A "$tmp/shared" | tr '\n' ' ')
    XDG_CACHE_HOME=$tmp/cache setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$tmp/bin/tcgen" "$X" a=b=12,i=4 -q --wisdom "$tmp/shared/w.wisdom" -o /dev/stdout \
        > "$tmp/nobody.c" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 0 ] && is_c "$tmp/nobody.c" && ok || bad "as nobody: exit $rc: $(cat "$tmp/err")"
    grep -q . "$tmp/err" && bad "as nobody: a message: $(cat "$tmp/err")" || ok
    # (wisdom writes the canonical names: index i is c there)
    grep -qF "	a=12,b=12,c=4	" "$tmp/shared/w.wisdom" && grep -qF "	a=11,b=11,c=4	" "$tmp/shared/w.wisdom" \
        && ok || bad "as nobody: the wisdom was not updated: $(cat "$tmp/shared/w.wisdom")"
    after=$(ls -A "$tmp/shared" | tr '\n' ' ')
    [ "$before" = "$after" ] && ok || bad "as nobody: the directory changed: '$before' -> '$after'"
    [ "$(stat -c '%U %a' "$tmp/shared/w.wisdom")" = "root 666" ] && ok \
        || bad "as nobody: the file is now $(stat -c '%U %a' "$tmp/shared/w.wisdom")"
else
    echo "files: not root (or no setpriv): the other-user cases are not run"
fi

[ -c /dev/null ] && ok || bad "/dev/null is not a character device at the end"
finish files
