package render

// The Kubernetes objects the "kubernetes" format writes, as typed structs
// with the API's field names. They mirror the few fields of core/v1 Pod and
// of CloudNativePG's Cluster (postgresql.cnpg.io/v1) that dbmem sets;
// k8s.io/api itself is not imported into the product (it adds 7 MiB to the
// stripped binary, see docs/kubernetes.md): the tests decode every document
// strictly with the k8s.io/api types and check the Cluster against
// CloudNativePG's CRD schema.

type objectMeta struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
}

type pod struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   objectMeta `json:"metadata"`
	Spec       podSpec    `json:"spec"`
}

type podSpec struct {
	Containers []container `json:"containers"`
	Volumes    []volume    `json:"volumes,omitempty"`
}

type container struct {
	Name         string        `json:"name"`
	Image        string        `json:"image"`
	Args         []string      `json:"args,omitempty"`
	Resources    resources     `json:"resources"`
	VolumeMounts []volumeMount `json:"volumeMounts,omitempty"`
}

// resources are requests and limits by resource name ("memory",
// "hugepages-2Mi") in quantity syntax.
type resources struct {
	Requests map[string]string `json:"requests,omitempty"`
	Limits   map[string]string `json:"limits,omitempty"`
}

type volumeMount struct {
	Name      string `json:"name"`
	MountPath string `json:"mountPath"`
}

type volume struct {
	Name     string    `json:"name"`
	EmptyDir *emptyDir `json:"emptyDir,omitempty"`
}

type emptyDir struct {
	Medium string `json:"medium"`
}

// cnpgCluster is a CloudNativePG Cluster (postgresql.cnpg.io/v1).
type cnpgCluster struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   objectMeta `json:"metadata"`
	Spec       cnpgSpec   `json:"spec"`
}

type cnpgSpec struct {
	Instances  int          `json:"instances"`
	ImageName  string       `json:"imageName,omitempty"`
	PostgreSQL cnpgPostgres `json:"postgresql"`
	Resources  resources    `json:"resources"`
	Storage    cnpgStorage  `json:"storage"`
}

type cnpgPostgres struct {
	Parameters map[string]string `json:"parameters,omitempty"`
}

type cnpgStorage struct {
	Size string `json:"size"`
}
