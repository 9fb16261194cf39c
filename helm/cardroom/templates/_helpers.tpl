{{/* Chart name, truncated to the 63 characters Kubernetes names allow. */}}
{{- define "cardroom.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified app name: the release name, plus the chart name unless the release already holds it. */}}
{{- define "cardroom.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "cardroom.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object; pass a dict with "root" and "component". */}}
{{- define "cardroom.labels" -}}
helm.sh/chart: {{ include "cardroom.chart" .root }}
{{ include "cardroom.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end }}

{{/* Selector labels: web, worker and redis pods differ only by app.kubernetes.io/component. */}}
{{- define "cardroom.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cardroom.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "cardroom.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "cardroom.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "cardroom.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The Secret holding REDIS_URL, and its key. */}}
{{- define "cardroom.redisSecretName" -}}
{{- if and .Values.redis.existingSecret (not .Values.redis.inCluster.enabled) }}
{{- .Values.redis.existingSecret }}
{{- else }}
{{- printf "%s-redis-url" (include "cardroom.fullname" .) }}
{{- end }}
{{- end }}

{{- define "cardroom.redisSecretKey" -}}
{{- if and .Values.redis.existingSecret (not .Values.redis.inCluster.enabled) }}
{{- .Values.redis.existingSecretKey }}
{{- else }}
{{- "url" }}
{{- end }}
{{- end }}

{{/* Environment shared by web and worker. */}}
{{- define "cardroom.env" -}}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "cardroom.redisSecretName" . }}
      key: {{ include "cardroom.redisSecretKey" . }}
- name: KEY_PREFIX
  value: {{ .Values.keyPrefix | quote }}
- name: RQ_QUEUE
  value: {{ .Values.rqQueue | quote }}
- name: IDEMPOTENCY_TTL_SECONDS
  value: {{ .Values.idempotencyTtlSeconds | quote }}
- name: GAME_IDLE_TTL_SECONDS
  value: {{ .Values.gameIdleTtlSeconds | quote }}
- name: GAME_RETENTION_SECONDS
  value: {{ .Values.gameRetentionSeconds | quote }}
- name: MAX_BODY_BYTES
  value: {{ .Values.maxBodyBytes | quote }}
- name: RATE_LIMIT_ENABLED
  value: {{ ternary "1" "0" .Values.rateLimit.enabled | quote }}
- name: RATE_LIMIT_PER_ADDRESS
  value: {{ .Values.rateLimit.perAddress | quote }}
- name: RATE_LIMIT_PER_TOKEN
  value: {{ .Values.rateLimit.perToken | quote }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}
