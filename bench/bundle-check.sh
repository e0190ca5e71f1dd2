#!/usr/bin/env bash
# Runs a bench bundle where nothing is installed: a chroot holding only bash, coreutils, mawk, sed,
# grep, glibc (Debian's libc6 whole, getconf included) and the base files /etc/passwd, group, hosts and nsswitch.conf, with
# /proc and /dev mounted. No java, no redis-*, no curl, no python3 inside. Needs root (chroot,
# mount) and a Debian-like host to copy those tools from.
#
# Usage: bench/bundle-check.sh teltonika-bench-*.tar.gz [runs=1]   (about 3 minutes a run)
set -euo pipefail
archive=$(readlink -f "$1")
runs=${2:-1}
bench_name=bundle-check
[[ $(id -u) == 0 ]] || { echo "$bench_name: needs root (chroot and mount)" >&2; exit 2; }
[[ -f $archive ]] || { echo "$bench_name: no archive $1" >&2; exit 2; }
root=$(mktemp -d /tmp/bundle-check.XXXXXX)
cleanup() {
  cp -a "$root"/tmp/e2e-runs.* /tmp/ 2>/dev/null || true  # the logs, where run.sh's last line says
  umount "$root/proc" "$root/dev" 2>/dev/null || true
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT
mkdir -p "$root"/{tmp,proc,dev,etc,opt,usr}
for d in bin sbin lib lib64; do  # a merged-/usr host's links, so copied paths land as they do here
  if [[ -L /$d ]]; then ln -s "$(readlink "/$d")" "$root/$d"; mkdir -p "$root/usr/$d"; fi
done
chmod 1777 "$root/tmp"
copy() { mkdir -p "$root$(dirname "$1")" && cp -aL "$1" "$root$1"; }
tools=$(dpkg -L coreutils | grep -E '^/(usr/)?bin/.') 
tools+=" $(command -v bash) $(readlink -f "$(command -v awk)") $(command -v sed) $(command -v grep) $(command -v getconf)"
for tool in $tools; do
  [[ -f $tool ]] || continue
  copy "$tool"
  ldd "$tool" 2>/dev/null | grep -o '/[^ ]*' | while read -r lib; do copy "$lib"; done
done
ln -sf "$(readlink -f "$(command -v awk)")" "$root/usr/bin/awk"
[[ -e $root/bin/sh ]] || ln -s bash "$root/bin/sh"
# glibc whole, as any glibc system has it (libdl.so.2, which Netty's native transport loads, is
# no dependency of the tools above), and the loader's path.
dpkg -L libc6 | while read -r f; do [[ -f $f ]] && copy "$f"; done
[[ -e $root/lib64/ld-linux-x86-64.so.2 ]] || copy /lib64/ld-linux-x86-64.so.2
for f in passwd group hosts nsswitch.conf; do [[ -f /etc/$f ]] && cp "/etc/$f" "$root/etc/"; done
tar xzf "$archive" -C "$root/opt"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
echo "== $bench_name: $(du -sh --exclude=opt --exclude=proc --exclude=dev "$root" | cut -f1) of base system in $root"
chroot "$root" /bin/bash -c 'export PATH=/usr/bin:/bin HOME=/tmp
  for t in java python3 redis-server redis-cli curl; do ! command -v $t >/dev/null || { echo "$t is in the chroot" >&2; exit 3; }; done
  cd /tmp && E2E_RUNS_OUT=/tmp /opt/teltonika-bench-*/run.sh '"$runs"
