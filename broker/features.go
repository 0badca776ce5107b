package broker

import (
	"slices"
	"strings"

	"github.com/kmeta-go/kmeta/image"
)

// knownFeature is one of Kafka 4.4's production features (Feature.PRODUCTION_FEATURES):
// its minimum level and its latest production and testing levels.
type knownFeature struct {
	name                     string
	min, production, testing int16
}

// features4_4 are Kafka 4.4's production features other than metadata.version.
var features4_4 = [...]knownFeature{
	{image.KRaftVersionFeature, 0, 1, 1},
	{"transaction.version", 0, 2, 2},
	{"group.version", 0, 1, 1},
	{image.ELRFeature, 0, 1, 1},
	{"share.version", 0, 2, 2},
	{"streams.version", 0, 1, 1},
}

// DefaultSupportedFeatures is BrokerFeatures.defaultSupportedFeatures of
// Kafka 4.4: metadata.version from MinimumMetadataVersion to the latest
// production level (or the latest level with unstable, Kafka's
// unstable.feature.versions.enable), and every production feature whose
// latest level is above 0, from its minimum level. Sorted by name.
func DefaultSupportedFeatures(unstable bool) []image.VersionRange {
	top := image.LatestProductionMetadataVersion
	if unstable {
		top = image.LatestMetadataVersion
	}
	out := []image.VersionRange{}
	for _, f := range features4_4 {
		hi := f.production
		if unstable {
			hi = f.testing
		}
		if hi > 0 {
			out = append(out, image.VersionRange{Name: f.name, Min: f.min, Max: hi})
		}
	}
	out = append(out, image.VersionRange{Name: image.MetadataVersionFeature, Min: int16(image.MinimumMetadataVersion), Max: int16(top)})
	slices.SortFunc(out, func(a, b image.VersionRange) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// DefaultFinalizedFeatures is BrokerFeatures.defaultFinalizedFeatures: each
// supported feature at its highest level, kraft.version at 0.
func DefaultFinalizedFeatures(supported []image.VersionRange) map[string]int16 {
	out := make(map[string]int16, len(supported))
	for _, r := range supported {
		if r.Name == image.KRaftVersionFeature {
			out[r.Name] = 0
		} else {
			out[r.Name] = r.Max
		}
	}
	return out
}

// IncompatibleFeatures is BrokerFeatures.incompatibleFeatures: the
// finalized features a broker supporting supported cannot run, because it
// does not know them or their level is outside its range
// (SupportedVersionRange.isIncompatibleWith). Empty (never nil) when all
// are compatible.
func IncompatibleFeatures(supported []image.VersionRange, finalized map[string]int16) map[string]int16 {
	out := map[string]int16{}
	for name, level := range finalized {
		r, ok := findRange(supported, name)
		if !ok || level < r.Min || level > r.Max {
			out[name] = level
		}
	}
	return out
}

func findRange(rs []image.VersionRange, name string) (image.VersionRange, bool) {
	for _, r := range rs {
		if r.Name == name {
			return r, true
		}
	}
	return image.VersionRange{}, false
}

// FinalizedLevels is the finalized features of f as Kafka's
// FeaturesImage.finalizedVersions holds them, with metadata.version added
// when f has one: the map IncompatibleFeatures checks.
func FinalizedLevels(f *image.Features) map[string]int16 {
	fin := f.Finalized()
	out := make(map[string]int16, len(fin)+1)
	for _, l := range fin {
		out[l.Name] = l.Level
	}
	if mv, ok := f.MetadataVersion(); ok {
		out[image.MetadataVersionFeature] = int16(mv)
	}
	return out
}
