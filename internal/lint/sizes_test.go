package lint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Size limits for hand-written Go: a file a reader can hold in mind and a
// function that fits on a screen or two.
const (
	maxFileLines = 800
	maxFuncLines = 80
)

// oversized lists what is over the limits today, by "dir/file.go" for a
// file and "dir/file.go Func" (or "dir/file.go Type.Method") for a
// function. The list only shrinks: TestSizes fails on anything over a limit
// that is not listed and on a listed entry that is no longer over it.
var oversized = [...]string{
	"delta/deltatest/brokers.go Simulator.RegisterBroker",
	"delta/deltatest/builder.go changeBuilder.build",
	"delta/deltatest/kafkalog/kafkalog_test.go TestLogLikeKafka",
	"delta/deltatest/kafkalog/states.go BuildStates",
	"delta/deltatest/ops_test.go randomOps",
	"delta/deltatest/sim.go",
	"delta/deltatest/sim.go Simulator.replay",
	"delta/imagejson_test.go TestVectorImageJSON",
	"delta/model_test.go model.next",
	"epoch/hints.go View.ApplyHints",
	"epoch/merge.go",
	"epoch/merge.go View.Merge",
	"epoch/merge_test.go TestMergeRules",
	"epoch/refresh_test.go TestScheduleRules",
	"epoch/sim_test.go TestSimulationEpochsNeverGoBack",
	"epoch/sim_test.go TestSimulationStorm",
	"examples/interop/faults_forward_test.go TestForwardFaults",
	"examples/interop/franz_forward_test.go TestForwardFranz",
	"examples/interop/kafkajs_forward_test.go TestForwardKafkajs",
	"examples/interop/sarama_forward_test.go TestForwardSarama",
	"examples/metadump/cdp_test.go startBrowser",
	"examples/metadump/imagediff.go diffImages",
	"examples/metadump/lineedit.go lineEditor.readLine",
	"examples/metadump/main.go runIO",
	"examples/metadump/shell_pty_test.go TestShellInteractiveOverPTY",
	"examples/metadump/timeline.go",
	"examples/metadump/timeline.go buildTimeline",
	"examples/metadump/timeline.go timelineBuilder.finish",
	"examples/metadump/timeline.go timelineBuilder.record",
	"examples/metadump/timeline.go writeTimelineText",
	"examples/proxy/hostile_test.go hostileFrames",
	"examples/proxy/main.go run",
	"image/answer/cluster.go describeCluster",
	"image/answer/describetopics.go describeTopicPartitions",
	"image/answer/metadata.go metadata",
	"image/answer/script_test.go script.handle",
	"image/answer/testimage_test.go edgeImage",
	"image/authz/cidr.go textToNumericFormatV6",
	"image/authz/model_test.go model.authorizeByResourceType",
	"image/authz/model_test.go model.wildcardScanFails",
	"image/authz/standard.go Standard.authorizeByResourceType",
	"image/json.go WriteJSON",
	"internal/recordgen/gen.go",
	"internal/recordgen/parse.go parser.fieldLine",
	"internal/wire/wire_test.go randomRequest",
	"publisher/concurrency_test.go TestConcurrentReadersSeeWholeCommits",
	"publisher/dirfollow/loadimage.go LoadPath",
	"publisher/dirfollow/soak_test.go TestSoakFollowOneHour",
	"publisher/dirfollow/states_test.go TestFollowEveryDirectoryState",
	"publisher/history/at.go ImagesAt",
	"publisher/history/builder.go",
	"publisher/history/builder.go Builder.replay",
	"publisher/history/check_test.go brokenLogs",
	"publisher/history/source.go openLog",
	"publisher/hooks_test.go TestHooksCarryTheLoaderMetrics",
	"publisher/loader.go",
}

// TestSizes: no hand-written Go file of the repository (nested modules and
// tests included, generated files and testdata not) is over maxFileLines
// lines, and no function or method is over maxFuncLines, except the entries
// of oversized — and every entry of oversized is still over its limit, so
// that the list is struck as the code is split.
func TestSizes(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	var over []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if n := fset.Position(f.End()).Line; n > maxFileLines {
			over = append(over, rel)
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if n > maxFuncLines {
				over = append(over, rel+" "+funcName(fd))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, e := range oversized {
		listed[e] = true
	}
	sort.Strings(over)
	for _, e := range over {
		if !listed[e] {
			t.Errorf("%s is over %d lines (files) or %d lines (functions): split it", e, maxFileLines, maxFuncLines)
		}
		delete(listed, e)
	}
	for e := range listed {
		t.Errorf("%s is listed in oversized but is within the limits now: strike it from the list", e)
	}
}

// funcName is "Name" for a function and "Type.Name" for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fmt.Sprintf("%T.%s", t, fd.Name.Name)
	}
}
