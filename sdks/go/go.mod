module github.com/relay/relay-go

go 1.19
