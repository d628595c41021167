module github.com/relay/relay-verify-go

go 1.19
