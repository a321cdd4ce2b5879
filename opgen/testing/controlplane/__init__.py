"""Running a throwaway control plane: etcd, kube-apiserver and kube-controller-manager.

It takes its binaries from `opgen.testing.binaries` (found, never built) and
runs them on loopback:

- `environment`: `Environment`, the public face (start, stop, clients, CRDs,
  an existing cluster instead);
- `localplane`: `LocalControlPlane`, the processes and their work directory;
- `components`: the command lines and readiness probes of each binary;
- `processes`: child processes in their own process group, and the watchdog;
- `reaper`: the watchdog script that cleans up when the owner dies;
- `pki`: the certificates; `kubeconfig`: the admin kubeconfig;
- `crds`: installing CRDs and waiting until they can be used;
- `webhooks`: webhook configurations and CRD conversions calling a local
  server, with its certificates (`WebhookInstallOptions`); `webhookmanager`:
  a project's webhooks served in a thread for the tests.

Nothing is imported here, so that a light user of one module (the reaper is
run by path) does not pay for the runtime client and cryptography.
"""
