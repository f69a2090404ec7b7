package world

// A Colour is one of the named colours the world paints with. Their RGB
// values sit near the middle of what English speakers call each name, far
// enough apart (at least 85 levels, yellow to orange) that H.264's
// rounding never makes one look like another.
type Colour int

const (
	Red Colour = iota
	Green
	Blue
	Yellow
	Purple
	Orange
	White
	Black
	Cyan
	Pink
	Brown
	Grey
	numColours
)

var colourNames = [numColours]string{"red", "green", "blue", "yellow", "purple", "orange", "white", "black", "cyan", "pink", "brown", "grey"}

var colourRGB = [numColours][3]byte{
	{220, 30, 30}, {30, 160, 50}, {30, 70, 220}, {245, 215, 30}, {130, 50, 170}, {245, 130, 30},
	{245, 245, 245}, {20, 20, 20}, {40, 210, 220}, {245, 150, 200}, {125, 75, 35}, {128, 128, 128},
}

func (c Colour) String() string { return colourNames[c] }

// RGB returns the colour's 8-bit red, green and blue.
func (c Colour) RGB() [3]byte { return colourRGB[c] }

// Colours lists every colour.
func Colours() []Colour {
	out := make([]Colour, numColours)
	for i := range out {
		out[i] = Colour(i)
	}
	return out
}

// The option classes. A colour question offers the four colours of one
// class, so every option of every such item has the same length as the
// others and the option set never says which is right (no option artifact
// is planted where none is meant); the scene then holds no other colour of
// that class, so the question has exactly one true answer. Backgrounds and
// bystander objects take the colours of the other classes.
var (
	class4 = []Colour{Blue, Pink, Grey, Cyan}     // four letters
	class5 = []Colour{Green, White, Black, Brown} // five letters
	classC = []Colour{Red, Yellow, Purple, Orange}
)

// A Shape is one of the shapes the world draws.
type Shape int

const (
	Square Shape = iota
	Circle
	Triangle
	Star
	numShapes
)

var shapeNames = [numShapes]string{"square", "circle", "triangle", "star"}

func (s Shape) String() string { return shapeNames[s] }

// Shapes lists every shape.
func Shapes() []Shape { return []Shape{Square, Circle, Triangle, Star} }
