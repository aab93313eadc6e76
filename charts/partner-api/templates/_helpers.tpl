{{/* Names and labels shared by every template. */}}
{{- define "partner-api.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "partner-api.componentName" -}}
{{- printf "%s-%s" (include "partner-api.fullname" .root) .name -}}
{{- end -}}

{{- define "partner-api.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/part-of: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "partner-api.selectorLabels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{- define "partner-api.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- with .Values.image.digest }}@{{ . }}{{ end -}}
{{- end -}}

{{- define "partner-api.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "partner-api.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Environment every container gets: shared config, infrastructure secret, service addresses. */}}
{{- define "partner-api.commonEnvFrom" -}}
- configMapRef:
    name: {{ include "partner-api.fullname" . }}
- secretRef:
    name: {{ .Values.infrastructureSecret }}
{{- include "partner-api.extraEnvFrom" . }}
{{- end -}}

{{- define "partner-api.extraEnvFrom" -}}
{{- range .Values.extraEnvFromSecrets }}
- secretRef:
    name: {{ . }}
{{- end }}
{{- end -}}

{{/*
Pod annotations every pod carries: the caller's own, and a checksum of the
infrastructure Secret as the cluster holds it now, so `helm upgrade` after a
change to that Secret rolls the pods (lookup is empty offline, in
`helm template` and --dry-run).
*/}}
{{- define "partner-api.podAnnotations" -}}
{{- $secret := lookup "v1" "Secret" .Release.Namespace .Values.infrastructureSecret -}}
checksum/infrastructure: {{ $secret.data | default dict | toJson | sha256sum }}
{{- with .Values.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The pause before SIGTERM: the native sleep action from 1.30 on, a sleep in the image before. */}}
{{- define "partner-api.preStop" -}}
{{- if .Values.preStopSleepSeconds -}}
lifecycle:
  preStop:
    {{- if semverCompare ">=1.30-0" .Capabilities.KubeVersion.Version }}
    sleep: { seconds: {{ .Values.preStopSleepSeconds }} }
    {{- else }}
    exec: { command: ["sleep", "{{ .Values.preStopSleepSeconds }}"] }
    {{- end }}
{{- end -}}
{{- end -}}
