#!/bin/sh
# Creates the dev overlay's Secret teltonika-ingestion in the namespace teltonika-dev, once, with
# random values: the Redis and sentinel password, the servers' REDIS_URL holding it, and the API
# token. Nothing of it is in git. Run it before `kubectl apply -k deploy/k8s/overlays/dev`; a second
# run leaves an existing Secret alone (delete it first to make new values, then restart the pods).
# The token: kubectl -n teltonika-dev get secret teltonika-ingestion -o jsonpath='{.data.api-token}' | base64 -d
set -eu
namespace=${NAMESPACE:-teltonika-dev}
if kubectl -n "$namespace" get secret teltonika-ingestion > /dev/null 2>&1; then
    echo "create-secret: teltonika-ingestion exists in $namespace; left as it is" >&2
    exit 0
fi
random_hex() {
    od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'
}
password=$(random_hex 24)
token=$(random_hex 32)
kubectl create namespace "$namespace" --dry-run=client -o yaml | kubectl apply -f - > /dev/null
# The three sentinels of redis-sentinel.yaml and the name they monitor: the server asks them for
# the primary at every (re)connect, logging in to them and to the Redis pods with the one password.
kubectl -n "$namespace" create secret generic teltonika-ingestion \
    --from-literal=redis-password="$password" \
    --from-literal=redis-url="redis-sentinel://:$password@redis-sentinel-0.redis-sentinel:26379,redis-sentinel-1.redis-sentinel:26379,redis-sentinel-2.redis-sentinel:26379/0#mymaster" \
    --from-literal=api-token="$token" > /dev/null
echo "create-secret: teltonika-ingestion created in $namespace with a random password and API token" >&2
