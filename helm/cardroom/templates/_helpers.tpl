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

{{/* The image: repository:tag, and @digest when one is set (which then decides what is pulled). */}}
{{- define "cardroom.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- with .Values.image.digest }}@{{ . }}{{ end }}
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

{{/* The key of the Redis Secret holding REDIS_CLUSTER_URL ("cluster-url" when the chart makes the Secret from
     redis.cluster; redis.existingSecretClusterKey with an existing Secret), or "" when the games live at REDIS_URL. */}}
{{- define "cardroom.clusterSecretKey" -}}
{{- if .Values.redis.inCluster.enabled }}
{{- else if .Values.redis.existingSecret }}
{{- .Values.redis.existingSecretClusterKey }}
{{- else if .Values.redis.cluster }}
{{- "cluster-url" }}
{{- end }}
{{- end }}

{{/* Likewise for RQ_REDIS_URL of one queue Redis: "queue-url" from redis.queue (or redis.queues of one URL), or
     redis.existingSecretQueueKey; "" with several queue Redis (cardroom.queueKeys). */}}
{{- define "cardroom.queueSecretKey" -}}
{{- if or .Values.redis.inCluster.enabled (gt (int (include "cardroom.queueCount" .)) 1) }}
{{- else if .Values.redis.existingSecret }}
{{- .Values.redis.existingSecretQueueKey }}
{{- else if or .Values.redis.queue .Values.redis.queues }}
{{- "queue-url" }}
{{- end }}
{{- end }}

{{/* How many queue Redis the AI turns are spread over, by game id (README "Several queue Redis"): the URLs of
     redis.queues, or the keys of redis.existingSecretQueueKeys with an existing Secret; 1 otherwise. */}}
{{- define "cardroom.queueCount" -}}
{{- if .Values.redis.inCluster.enabled }}1
{{- else if .Values.redis.existingSecret }}{{ max 1 (len .Values.redis.existingSecretQueueKeys) }}
{{- else }}{{ max 1 (len .Values.redis.queues) }}
{{- end }}
{{- end }}

{{/* The Secret keys of the queue Redis' URLs, one per queue Redis, as a JSON list ("queue-url-0", ... from
     redis.queues, or redis.existingSecretQueueKeys); only with several. */}}
{{- define "cardroom.queueKeys" -}}
{{- if .Values.redis.existingSecret }}
{{- toJson .Values.redis.existingSecretQueueKeys }}
{{- else }}
{{- $keys := list }}
{{- range $index, $url := .Values.redis.queues }}
{{- $keys = append $keys (printf "queue-url-%d" $index) }}
{{- end }}
{{- toJson $keys }}
{{- end }}
{{- end }}

{{/* The worker Deployment (and its ScaledObject) of queue Redis "shard" of a dict with "root": <fullname>-worker
     with one queue Redis, <fullname>-worker-<shard> with several. */}}
{{- define "cardroom.workerName" -}}
{{- if gt (int (include "cardroom.queueCount" .root)) 1 }}
{{- printf "%s-worker-%d" (include "cardroom.fullname" .root) (int .shard) }}
{{- else }}
{{- printf "%s-worker" (include "cardroom.fullname" .root) }}
{{- end }}
{{- end }}

{{/* With several queue Redis, their RQ_REDIS_URL (service/config.py): pass a dict with "root" and "shard", -1 for
     a web pod (each URL as RQ_REDIS_URL_<n>, and RQ_REDIS_URL their list, comma-separated, by Kubernetes' $(...)
     expansion), else the queue Redis a worker pod serves (RQ_REDIS_URL that one, RQ_REDIS_SHARD <n>/<count>). */}}
{{- define "cardroom.queueEnv" -}}
{{- $count := int (include "cardroom.queueCount" .root) }}
{{- if gt $count 1 }}
{{- $keys := include "cardroom.queueKeys" .root | fromJsonArray }}
{{- $secret := include "cardroom.redisSecretName" .root }}
{{- if lt (int .shard) 0 }}
{{- $names := list }}
{{- range $index, $key := $keys }}
{{- $names = append $names (printf "$(RQ_REDIS_URL_%d)" $index) }}
- name: RQ_REDIS_URL_{{ $index }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $key }}
{{- end }}
- name: RQ_REDIS_URL
  value: {{ join "," $names | quote }}
{{- else }}
- name: RQ_REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ index $keys (int .shard) }}
- name: RQ_REDIS_SHARD
  value: {{ printf "%d/%d" (int .shard) $count | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/* The URL of the chart's own single-pod Redis (redis.inCluster). */}}
{{- define "cardroom.inClusterRedisUrl" -}}
{{- printf "redis://%s-redis:6379/0" (include "cardroom.fullname" .) }}
{{- end }}

{{/* The URL of the RQ queue's Redis as far as the values know it: redis.queue, else redis.url (the in-cluster
     Redis when enabled); "" when it is in an existing Secret. */}}
{{- define "cardroom.queueUrl" -}}
{{- if .Values.redis.inCluster.enabled }}
{{- include "cardroom.inClusterRedisUrl" . }}
{{- else if not .Values.redis.existingSecret }}
{{- default .Values.redis.url (default .Values.redis.queue (first .Values.redis.queues)) }}
{{- end }}
{{- end }}

{{/* host:port of a redis:// or rediss:// URL (6379 when it names no port); a password in it is left out. */}}
{{- define "cardroom.hostPort" -}}
{{- $host := last (splitList "@" (urlParse .).host) }}
{{- if contains ":" $host }}{{ $host }}{{ else }}{{ printf "%s:6379" $host }}{{ end }}
{{- end }}

{{/* The sentinels of a redis+sentinel:// URL, each as host:port (26379 when it names none), comma-separated:
     KEDA's `addresses`. (Helm's urlParse refuses a URL of several hosts.) */}}
{{- define "cardroom.sentinelAddresses" -}}
{{- $addresses := list }}
{{- range splitList "," (regexReplaceAll "^redis\\+sentinel://([^/]*@)?([^/?]*).*$" . "${2}") }}
{{- $addresses = append $addresses (ternary (trim .) (printf "%s:26379" (trim .)) (contains ":" .)) }}
{{- end }}
{{- join "," $addresses }}
{{- end }}

{{/* Environment shared by web and worker. */}}
{{- define "cardroom.env" -}}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "cardroom.redisSecretName" . }}
      key: {{ include "cardroom.redisSecretKey" . }}
{{- range $variable, $key := dict "REDIS_CLUSTER_URL" (include "cardroom.clusterSecretKey" .) "RQ_REDIS_URL" (include "cardroom.queueSecretKey" .) }}
{{- if $key }}
- name: {{ $variable }}
  valueFrom:
    secretKeyRef:
      name: {{ include "cardroom.redisSecretName" $ }}
      key: {{ $key }}
{{- end }}
{{- end }}
- name: REDIS_WAIT_REPLICAS
  value: {{ .Values.redis.waitReplicas | quote }}
- name: REDIS_WAIT_TIMEOUT_MS
  value: {{ .Values.redis.waitTimeoutMs | quote }}
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
{{- with .Values.webhookAllowedHosts }}
- name: WEBHOOK_ALLOWED_HOSTS
  value: {{ . | quote }}
{{- end }}
{{- with .Values.redis.passwordSecret }}
{{- if .name }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .name }}
      key: {{ .key }}
{{- end }}
{{- end }}
{{- with .Values.redis.sentinelPasswordSecret }}
{{- if .name }}
- name: REDIS_SENTINEL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .name }}
      key: {{ .key }}
{{- end }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* envFrom, volume mounts and volumes shared by web and worker: the chart's /tmp plus extraVolume(Mount)s. */}}
{{- define "cardroom.envFrom" -}}
{{- with .Values.envFrom -}}
envFrom:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{- define "cardroom.volumeMounts" -}}
volumeMounts:
  - name: tmp
    mountPath: /tmp
  {{- with .Values.extraVolumeMounts }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}

{{- define "cardroom.volumes" -}}
volumes:
  - name: tmp
    emptyDir: {}
  {{- with .Values.extraVolumes }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}

{{/* Scheduling of one component's pods; pass a dict with "root" and "component". A topology spread
     constraint without a labelSelector spreads the component's own pods. */}}
{{- define "cardroom.scheduling" -}}
{{- $values := index .root.Values .component }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- range . }}
  - {{- toYaml (merge (deepCopy .) (dict "labelSelector" (dict "matchLabels" (fromYaml (include "cardroom.selectorLabels" $))))) | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}

{{/* The ports of the Redis servers pods connect to, for the NetworkPolicy, as a JSON list: networkPolicy.redisPorts,
     else 6379 for the in-cluster Redis or URLs in an existing Secret, else the ports of redis.url, redis.queue and
     each seed node of redis.cluster (of a redis+sentinel:// URL: its sentinels', and 6379 for the primary they
     name, whose port the chart cannot know). Cluster nodes on other ports than the seeds' must be listed in redisPorts: a
     client connects to every primary it learns of (the cluster bus port is between the nodes only). */}}
{{- define "cardroom.redisPorts" -}}
{{- if .Values.networkPolicy.redisPorts }}
{{- toJson .Values.networkPolicy.redisPorts }}
{{- else if or .Values.redis.inCluster.enabled .Values.redis.existingSecret }}
{{- toJson (list 6379) }}
{{- else }}
{{- $ports := list }}
{{- range concat (list .Values.redis.url .Values.redis.queue) .Values.redis.queues (splitList "," .Values.redis.cluster) }}
{{- if hasPrefix "redis+sentinel://" . }}
{{- range splitList "," (include "cardroom.sentinelAddresses" .) }}
{{- $ports = append $ports (last (splitList ":" .) | int) }}
{{- end }}
{{- $ports = append $ports 6379 }}
{{- else if trim . }}
{{- $ports = append $ports (last (splitList ":" (include "cardroom.hostPort" (trim .))) | int) }}
{{- end }}
{{- end }}
{{- toJson (uniq $ports) }}
{{- end }}
{{- end }}

{{/* Refuse a PodDisruptionBudget whose minAvailable leaves no pod to evict; pass "root", "component", "replicas". */}}
{{- define "cardroom.checkBudget" -}}
{{- $budget := (index .root.Values .component).podDisruptionBudget }}
{{- if and $budget.enabled (hasKey $budget "minAvailable") (not (kindIs "string" $budget.minAvailable)) }}
{{- if ge (int $budget.minAvailable) (int .replicas) }}
{{- fail (printf "%s.podDisruptionBudget.minAvailable (%d) must be below its replica count (%d), or every eviction (a node drain) is blocked: use maxUnavailable" .component (int $budget.minAvailable) (int .replicas)) }}
{{- end }}
{{- end }}
{{- end }}
