module datecompare

go 1.26.0

require (
	github.com/ijt/go-anytime v1.9.2
	github.com/markusmobius/go-dateparser v1.4.7
	github.com/olebedev/when v1.1.0
	github.com/tj/go-naturaldate v1.3.0
)

require (
	github.com/AlekSi/pointer v1.0.0 // indirect
	github.com/ijt/goparsify v0.0.0-20221203142333-3a5276334b8d // indirect
	github.com/markusmobius/go-dateutil/v2 v2.9.1 // indirect
	github.com/pkg/errors v0.8.1 // indirect
	github.com/tetratelabs/wazero v1.12.0 // indirect
	github.com/wasilibs/go-re2 v1.12.0 // indirect
	github.com/wasilibs/wazero-helpers v0.0.0-20250123031827-cd30c44769bb // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)
