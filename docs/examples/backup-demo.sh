#!/bin/sh
# Watch the backup controller act (it must be running). Uses $KUBECTL (default: kubectl on the
# PATH) with the client configuration $SVCCONFIG (default: data/admin.svcconfig, as svc up writes).
set -e
k() { "${KUBECTL:-kubectl}" --kubeconfig "${SVCCONFIG:-data/admin.svcconfig}" "$@"; }
k create namespace backups
k create configmap settings --from-literal=color=blue
k label configmap settings replicate=true
i=0
until [ "$(k get configmap default.settings -n backups -o jsonpath='{.data.color}' 2>/dev/null)" = blue ]; do
  i=$((i + 1)); [ $i -lt 100 ] || { echo "timed out waiting for the backup"; exit 1; }; sleep 0.2
done
k get configmap default.settings -n backups -o yaml
