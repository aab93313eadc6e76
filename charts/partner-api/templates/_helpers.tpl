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
{{- end -}}
