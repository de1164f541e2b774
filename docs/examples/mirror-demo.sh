#!/bin/sh
# Watch the mirror controller act (it must be running). Uses $KUBECTL (default: kubectl on the
# PATH) with the client configuration $SVCCONFIG (default: data/admin.svcconfig, as svc up writes).
set -e
k() { "${KUBECTL:-kubectl}" --kubeconfig "${SVCCONFIG:-data/admin.svcconfig}" "$@"; }
# wait_for <what> <command...>: retries the command for up to 20 s.
wait_for() {
  what=$1; shift; i=0
  until "$@" >/dev/null 2>&1; do
    i=$((i + 1)); [ $i -lt 100 ] || { echo "timed out: $what"; exit 1; }; sleep 0.2
  done
  echo "ok: $what"
}
copy_says() { [ "$(k get configmap greeting -n "$1" -o jsonpath='{.data.hello}')" = "$2" ]; }
no_copies() { [ -z "$(k get configmaps -A -l mirror.svc.io/source=team-a.greeting -o name)" ]; }

k create namespace team-a
k create namespace team-b
k create configmap greeting -n team-a --from-literal=hello=world
k label configmap greeting -n team-a mirror=true
wait_for "copy in team-b" copy_says team-b world
k get configmaps -A -l mirror.svc.io/source=team-a.greeting

k patch configmap greeting -n team-a --type=merge -p '{"data":{"hello":"there"}}'
wait_for "the copy follows the change" copy_says team-b there

k create namespace team-c
wait_for "a new namespace gets a copy" copy_says team-c there

k label configmap greeting -n team-a mirror-
wait_for "unlabelled: copies removed" no_copies
k get events -n team-a -o custom-columns=TYPE:.type,REASON:.reason,MESSAGE:.message
