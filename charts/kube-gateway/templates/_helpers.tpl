{{- define "kube-gateway.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "kube-gateway.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "kube-gateway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kube-gateway.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "kube-gateway.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{ include "kube-gateway.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Where the container finds what the chart mounts. */}}
{{- define "kube-gateway.paths" -}}
dataDir: /var/lib/kube-gateway
tls: /etc/kube-gateway/tls
auth: /etc/kube-gateway/auth
sa: /etc/kube-gateway/sa
config: /etc/kube-gateway/config
{{- end -}}

{{- define "kube-gateway.tlsSecretName" -}}
{{- if eq .Values.tls.mode "existingSecret" -}}
{{- required "tls.secretName is required with tls.mode=existingSecret" .Values.tls.secretName -}}
{{- else -}}
{{- printf "%s-tls" (include "kube-gateway.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* The etcd client URLs the gateway uses, or nothing with sqlite. */}}
{{- define "kube-gateway.etcdServers" -}}
{{- if eq .Values.storage.mode "etcd" -}}
{{- join "," (required "storage.etcd.servers is required with storage.mode=etcd" .Values.storage.etcd.servers) -}}
{{- else if eq .Values.storage.mode "etcd-bundled" -}}
{{- printf "http://%s-etcd:2379" (include "kube-gateway.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "kube-gateway.redisUrl" -}}
{{- if eq .Values.redis.mode "external" -}}
{{- required "redis.url is required with redis.mode=external" .Values.redis.url -}}
{{- else if eq .Values.redis.mode "bundled" -}}
{{- printf "redis://%s-redis:6379" (include "kube-gateway.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "kube-gateway.validate" -}}
{{- if not (has .Values.storage.mode (list "sqlite" "etcd" "etcd-bundled")) -}}
{{- fail (printf "storage.mode must be sqlite, etcd or etcd-bundled, not %q" .Values.storage.mode) -}}
{{- end -}}
{{- if not (has .Values.redis.mode (list "none" "external" "bundled")) -}}
{{- fail (printf "redis.mode must be none, external or bundled, not %q" .Values.redis.mode) -}}
{{- end -}}
{{- if not (has .Values.tls.mode (list "generate" "existingSecret" "certManager")) -}}
{{- fail (printf "tls.mode must be generate, existingSecret or certManager, not %q" .Values.tls.mode) -}}
{{- end -}}
{{- if and (eq .Values.storage.mode "sqlite") (ne .Values.redis.mode "none") -}}
{{- fail "redis watch fanout needs etcd storage: set redis.mode=none with storage.mode=sqlite" -}}
{{- end -}}
{{- if .Values.storage.etcd.tls.secretName -}}
{{- fail "storage.etcd.tls: this gateway version has no etcd client TLS flags yet; use an etcd reachable over http on a private network" -}}
{{- end -}}
{{- if and (eq .Values.tls.mode "certManager") (not .Values.tls.certManager.issuerRef.name) -}}
{{- fail "tls.certManager.issuerRef.name is required with tls.mode=certManager" -}}
{{- end -}}
{{- end -}}

{{/* The gateway's flags: every file flag names a path mounted by the pod template. */}}
{{- define "kube-gateway.args" -}}
{{- $p := include "kube-gateway.paths" . | fromYaml -}}
- --secure-port=6443
- --bind-address=0.0.0.0
- --data-dir={{ $p.dataDir }}
- --tls-cert-file={{ $p.tls }}/tls.crt
- --tls-private-key-file={{ $p.tls }}/tls.key
- --client-ca-file={{ $p.tls }}/ca.crt
- --token-auth-file={{ $p.auth }}/tokens.csv
- --service-account-signing-key-file={{ $p.sa }}/sa.key
- --service-account-key-file={{ $p.sa }}/sa.key
{{- with .Values.auth.serviceAccountIssuer }}
- --service-account-issuer={{ . }}
{{- end }}
- --history-duration={{ .Values.storage.historyDuration }}
{{- if eq .Values.storage.mode "sqlite" }}
- --storage-backend=sqlite
{{- else }}
- --etcd-servers={{ include "kube-gateway.etcdServers" . }}
- --leader-elect={{ .Values.leaderElection.enabled }}
{{- end }}
{{- with include "kube-gateway.redisUrl" . }}
- --watch-fanout={{ . }}
{{- end }}
{{- if and (ne .Values.redis.mode "none") .Values.redis.maxBytes }}
- --watch-fanout-max-bytes={{ .Values.redis.maxBytes | int64 }}
{{- end }}
{{- if .Values.auth.authorizationConfig }}
- --authorization-config={{ $p.config }}/authorization-config.yaml
{{- else }}
- --authorization-mode={{ join "," .Values.auth.authorizationModes }}
{{- end }}
{{- if .Values.auth.authenticationConfig }}
- --authentication-config={{ $p.config }}/authentication-config.yaml
{{- end }}
{{- with .Values.admission.enablePlugins }}
- --enable-admission-plugins={{ join "," . }}
{{- end }}
{{- with .Values.admission.disablePlugins }}
- --disable-admission-plugins={{ join "," . }}
{{- end }}
{{- if .Values.admission.config }}
- --admission-control-config-file={{ $p.config }}/admission-config.yaml
{{- end }}
{{- if and .Values.audit.enabled .Values.audit.policy }}
- --audit-policy-file={{ $p.config }}/audit-policy.yaml
- --audit-log-path=-
{{- end }}
- --enable-priority-and-fairness={{ .Values.apf.enabled }}
- --max-requests-inflight={{ .Values.apf.maxRequestsInflight | int }}
- --max-mutating-requests-inflight={{ .Values.apf.maxMutatingRequestsInflight | int }}
{{- range .Values.extraArgs }}
- {{ . }}
{{- end }}
{{- end -}}

{{- define "kube-gateway.hasConfigFiles" -}}
{{- if or .Values.auth.authorizationConfig .Values.auth.authenticationConfig .Values.admission.config (and .Values.audit.enabled .Values.audit.policy) -}}true{{- end -}}
{{- end -}}

{{/* The pod template shared by the Deployment (etcd) and the StatefulSet (sqlite). */}}
{{- define "kube-gateway.podTemplate" -}}
{{- $p := include "kube-gateway.paths" . | fromYaml -}}
metadata:
  labels:
    {{- include "kube-gateway.selectorLabels" . | nindent 4 }}
    {{- with .Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    checksum/config: {{ include (print $.Template.BasePath "/configmap.yaml") . | sha256sum }}
    {{- with .Values.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  {{- with .Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  automountServiceAccountToken: false
  securityContext:
    {{- toYaml .Values.securityContext | nindent 4 }}
  containers:
    - name: kube-gateway
      image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
      imagePullPolicy: {{ .Values.image.pullPolicy }}
      command: [node, --v8-pool-size=2, /app/bin/kube-gateway.js]
      args:
        {{- include "kube-gateway.args" . | nindent 8 }}
      env:
        - name: NODE_ENV
          value: production
        {{- with .Values.extraEnv }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      ports:
        - name: https
          containerPort: 6443
          protocol: TCP
      startupProbe:
        httpGet: {path: /livez, port: https, scheme: HTTPS}
        periodSeconds: 2
        failureThreshold: 60
      livenessProbe:
        httpGet: {path: /livez, port: https, scheme: HTTPS}
        periodSeconds: 10
        timeoutSeconds: 5
        failureThreshold: 6
      readinessProbe:
        httpGet: {path: /readyz, port: https, scheme: HTTPS}
        periodSeconds: 5
        timeoutSeconds: 5
        failureThreshold: 3
      resources:
        {{- toYaml .Values.resources | nindent 8 }}
      securityContext:
        allowPrivilegeEscalation: false
        readOnlyRootFilesystem: true
        capabilities:
          drop: [ALL]
      volumeMounts:
        - name: data
          mountPath: {{ $p.dataDir }}
        - name: tmp
          mountPath: /tmp
        - name: tls
          mountPath: {{ $p.tls }}
          readOnly: true
        - name: auth
          mountPath: {{ $p.auth }}
          readOnly: true
        - name: sa
          mountPath: {{ $p.sa }}
          readOnly: true
        {{- if include "kube-gateway.hasConfigFiles" . }}
        - name: config
          mountPath: {{ $p.config }}
          readOnly: true
        {{- end }}
        {{- with .Values.extraVolumeMounts }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
  volumes:
    {{- if ne .Values.storage.mode "sqlite" }}
    - name: data
      emptyDir: {}
    {{- end }}
    - name: tmp
      emptyDir: {}
    - name: tls
      secret:
        secretName: {{ include "kube-gateway.tlsSecretName" . }}
    - name: auth
      secret:
        secretName: {{ include "kube-gateway.fullname" . }}-auth
    - name: sa
      secret:
        secretName: {{ include "kube-gateway.fullname" . }}-sa
    {{- if include "kube-gateway.hasConfigFiles" . }}
    - name: config
      configMap:
        name: {{ include "kube-gateway.fullname" . }}-config
    {{- end }}
    {{- with .Values.extraVolumes }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  affinity:
    {{- if .Values.affinity }}
    {{- toYaml .Values.affinity | nindent 4 }}
    {{- else }}
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 100
          podAffinityTerm:
            topologyKey: kubernetes.io/hostname
            labelSelector:
              matchLabels:
                {{- include "kube-gateway.selectorLabels" . | nindent 16 }}
    {{- end }}
{{- end -}}
