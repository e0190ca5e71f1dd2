#!/usr/bin/env bash
# A portable bench bundle: one archive that runs bench/e2e-runs.sh on an x86-64 Linux host with no
# JDK, no Redis and no curl: a jlink'd Java 17 runtime, the jars, the bench scripts, and this
# machine's redis-server/redis-cli/redis-benchmark with every shared library they load and the
# dynamic loader (run through that loader, so the host's libraries do not matter). The host needs
# bash, coreutils, grep, sed and awk (any POSIX awk: mawk, gawk, busybox), nothing else (no Python);
# the bundled java uses the host's glibc (2.17 or newer, with its getconf).
#
# Usage: bench/bundle.sh [out-dir=bench-bundle]   (prints the archive's path)
# Env:   REDIS_SERVER=path  the redis-server binary to take (default: the one on the PATH, else
#        Debian's redis-server package fetched with apt-get download, never installed)
#        JAVA_HOME  the JDK 17 to jlink from (default: the one of the java on the PATH)
#        BUNDLE_ACK_FLOOR=1  also carry benchmarks/target/benchmarks.jar (bench/ack-floor.sh; +46 MB)
# Then, on the target host: tar xzf teltonika-bench-*.tar.gz && ./teltonika-bench-*/run.sh 5
set -euo pipefail
# A given out-dir is relative to where the script was called from; the default is the repo's bench-bundle/.
out_dir=$(mkdir -p "${1:-$(dirname "$0")/../bench-bundle}" && cd "${1:-$(dirname "$0")/../bench-bundle}" && pwd)
cd "$(dirname "$0")/.."

fail() { echo "bundle: $*" >&2; exit 1; }
[[ $(uname -m) == x86_64 ]] || fail "builds the x86-64 bundle only on x86-64, this is $(uname -m)"
version=$(sed -n 's:^  <version>\(.*\)</version>:\1:p' pom.xml | head -1)
name=teltonika-bench-$version-linux-x86_64
java_home=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}
[[ -x $java_home/bin/jlink ]] || fail "no jlink in $java_home (set JAVA_HOME to a JDK 17)"
"$java_home/bin/java" -version 2>&1 | grep -q 'version "17' || fail "$java_home is not a JDK 17"
for tool in redis-cli redis-benchmark ldd; do command -v "$tool" >/dev/null || fail "$tool not found (Debian: apt-get install redis-tools)"; done

work=$(mktemp -d /tmp/bench-bundle.XXXXXX)
trap 'rm -rf "$work"' EXIT
stage=$work/$name

echo "bundle: building the jars"
mvn -B -ntp -q -pl ingestion-server,device-simulator,benchmarks -am package -DskipTests
# benchmarks.jar (46 MB, for bench/ack-floor.sh and JMH) only with BUNDLE_ACK_FLOOR=1: run.sh runs e2e-runs.sh.
jars=(ingestion-server/target/ingestion-server.jar device-simulator/target/device-simulator.jar)
[[ -n ${BUNDLE_ACK_FLOOR:-} ]] && jars+=(benchmarks/target/benchmarks.jar)
for jar in "${jars[@]}"; do [[ -f $jar ]] || fail "$jar was not built"; done

echo "bundle: the repository files the scripts use"
mkdir -p "$stage/repo"
for f in "${jars[@]}" bench/*.sh bench/*.awk bench/*.py bench/*.jfc ingestion-server/src/main/resources/ingest/append-packets.lua; do
  mkdir -p "$stage/repo/$(dirname "$f")"
  cp "$f" "$stage/repo/$f"
done
rm -f "$stage/repo/bench/bundle.sh"

echo "bundle: the Java runtime (jlink from $java_home)"
# The server and simulator are plain classpath jars: java.se covers them; jdk.unsupported for
# Netty/Lettuce, jdk.jfr (and its `jfr` tool) and jdk.jcmd (`jcmd`) for e2e-benchmark's allocation
# count, the rest for libraries that look for them at run time (TLS EC, zipfs, management, JFR via JMX).
"$java_home/bin/jlink" --add-modules java.se,jdk.unsupported,jdk.jfr,jdk.jcmd,jdk.management,jdk.management.jfr,jdk.crypto.ec,jdk.zipfs,jdk.httpserver,jdk.net \
  --strip-debug --no-header-files --no-man-pages --compress=2 --output "$stage/runtime"

echo "bundle: Redis with its libraries and loader"
redis_server=${REDIS_SERVER:-$(command -v redis-server || true)}
if [[ -z $redis_server ]]; then
  # Debian's redis-server package is only a link to redis-check-rdb (from redis-tools): one binary
  # that serves unless its name says redis-check-*. Fetched, unpacked, never installed.
  (cd "$work" && apt-get download redis-server >/dev/null 2>&1 && dpkg-deb -x redis-server_*.deb deb) \
    || fail "no redis-server on the PATH and apt-get download redis-server failed; set REDIS_SERVER"
  redis_server=$work/deb/usr/bin/redis-server
  [[ -L $redis_server ]] && redis_server=$(command -v "$(readlink "$redis_server")")
fi
redis_server=$(readlink -f "$redis_server")   # checked below, once named redis-server
mkdir -p "$stage/bin" "$stage/lib" "$stage/libexec"
declare -A binaries=([redis-server]=$redis_server [redis-cli]=$(readlink -f "$(command -v redis-cli)")
  [redis-benchmark]=$(readlink -f "$(command -v redis-benchmark)"))
for tool in "${!binaries[@]}"; do
  cp "${binaries[$tool]}" "$stage/libexec/$tool"
  # Every library ldd resolves, and the loader itself (the "/lib64/ld-linux-x86-64.so.2 (0x...)" line).
  ldd "${binaries[$tool]}" | awk '/=> \// {print $3} /^[ \t]*\/.*ld-linux/ {print $1}' | while read -r lib; do
    cp -L "$lib" "$stage/lib/"
  done
  cat > "$stage/bin/$tool" <<WRAPPER
#!/usr/bin/env bash
# $tool through the bundle's own loader and libraries (none of the host's).
here=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")/.." && pwd)
exec "\$here/lib/ld-linux-x86-64.so.2" --library-path "\$here/lib" "\$here/libexec/$tool" "\$@"
WRAPPER
  chmod +x "$stage/bin/$tool"
done
[[ -f $stage/lib/ld-linux-x86-64.so.2 ]] || fail "ldd named no ld-linux-x86-64.so.2"

# The runtime's own libraries need only glibc, zlib, libstdc++ and libgcc_s from the host: the last
# three go into the runtime's lib/, which the java/jcmd/jfr wrappers put on LD_LIBRARY_PATH.
for lib in $(ldd "$stage/runtime/bin/java" "$stage/runtime/lib/server/libjvm.so" "$stage/runtime/lib/libzip.so" \
  | awk '$1 ~ /^(libz|libstdc\+\+|libgcc_s)\.so/ && $3 ~ /^\// {print $3}' | sort -u); do
  cp -L "$lib" "$stage/runtime/lib/"
done
for tool in java jcmd jfr; do
  cat > "$stage/bin/$tool" <<WRAPPER
#!/usr/bin/env bash
# The bundle's $tool (jlink'd runtime), with the few host libraries it would otherwise need.
here=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")/.." && pwd)
export LD_LIBRARY_PATH="\$here/runtime/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "\$here/runtime/bin/$tool" "\$@"
WRAPPER
  chmod +x "$stage/bin/$tool"
done
cp bench/bundle/curl "$stage/bin/curl"
cp bench/bundle/run.sh "$stage/run.sh"
chmod +x "$stage/run.sh" "$stage/bin/curl"
"$stage/bin/redis-server" --version | grep -q '^Redis server' || fail "the bundled redis-server does not run"
"$stage/bin/java" -version 2>/dev/null || fail "the bundled java does not run"

archive=$out_dir/$name.tar.gz
tar -C "$work" -czf "$archive" "$name"
echo "bundle: $archive ($(du -h "$archive" | cut -f1))"
