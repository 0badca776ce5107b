module github.com/kmeta-go/kmeta

go 1.26
