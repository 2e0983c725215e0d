#!/bin/sh
# The authenticating proxy (front proxy): kube-gateway trusts the identity headers only on requests whose client
# certificate verifies against --requestheader-client-ca-file and, when --requestheader-allowed-names is set, has
# one of those CNs. Without such a certificate the headers are ignored.
kube-gateway \
  --requestheader-client-ca-file=front-proxy-ca.crt \
  --requestheader-allowed-names=front-proxy-client \
  --requestheader-username-headers=X-Remote-User \
  --requestheader-group-headers=X-Remote-Group \
  --requestheader-extra-headers-prefix=X-Remote-Extra- &

# What the proxy forwards (its own certificate, CN=front-proxy-client, signed by front-proxy-ca): the request is
# then user alice in groups developers and system:authenticated, with extra scopes=[read] (names lowercased,
# percent-decoded).
curl --cacert ca.crt --cert front-proxy-client.crt --key front-proxy-client.key \
  -H 'X-Remote-User: alice' -H 'X-Remote-Group: developers' -H 'X-Remote-Extra-Scopes: read' \
  https://127.0.0.1:6443/apis/authentication.k8s.io/v1/selfsubjectreviews \
  -H 'Content-Type: application/json' -X POST -d '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}'
