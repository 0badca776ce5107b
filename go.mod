module github.com/kmeta-go/kmeta

go 1.26.0

require (
	github.com/benbjohnson/immutable v0.4.3
	github.com/stretchr/testify v1.12.1
	github.com/twmb/franz-go/pkg/kmsg v1.15.1
	golang.org/x/sync v0.25.0
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/exp v0.0.0-20220518171630-0b5c67f07fdf // indirect
)
