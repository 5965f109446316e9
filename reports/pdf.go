package reports

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// pdfCanvas is a vg.CanvasWriterTo that writes a one-page vector PDF whose fonts are embedded
// as Unicode (UTF-8) TrueType subsets. It replaces gonum's vgpdf, which embeds its fonts with the
// Windows-1252 code page: every character outside it (ρ, τ, −, ∞, ≥, the subscripts of log₂,
// and even the µ of "µs" is written as its UTF-8 bytes) came out as mojibake ("Ï„" for τ).
// Embedding every font is what a journal's preflight (Editorial Manager, PDF/X checkers)
// requires; pdffonts lists each of ours as "emb yes sub yes uni yes".
//
// The document's dates are fixed (pdfEpoch) and its catalogs sorted, so that the same figure is
// the same bytes: fpdf writes the time of writing as /CreationDate and /ModDate by default.
//
// The drawing follows vgpdf (BSD licence, © The Gonum Authors): PDF user space in points with
// the origin at the bottom left (a translation and a flip of fpdf's top-left origin), colours as
// stroke, fill and text colour at once, a transform stack for Push and Pop.
type pdfCanvas struct {
	doc   *fpdf.Fpdf
	w, h  vg.Length
	stack []pdfContext
	fonts map[string]bool // the fonts added to doc, by name
	image int             // the images drawn so far, to name the next
}

// pdfContext is the state Push saves and Pop restores.
type pdfContext struct {
	width vg.Length
}

// pdfEpoch is the creation and modification date of every PDF: the Unix epoch, as
// SOURCE_DATE_EPOCH=0 would give, since a figure's bytes must not depend on when it was drawn.
var pdfEpoch = time.Unix(0, 0).UTC()

// newPDFCanvas returns a PDF canvas of w × h.
func newPDFCanvas(w, h vg.Length) *pdfCanvas {
	doc := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: w.Points(), Ht: h.Points()}})
	doc.SetCreationDate(pdfEpoch)
	doc.SetModificationDate(pdfEpoch)
	doc.SetCatalogSort(true)
	doc.SetCreator("hcbench", false)
	doc.SetMargins(0, 0, 0)
	doc.SetAutoPageBreak(false, 0)
	doc.AddPage()
	c := &pdfCanvas{doc: doc, w: w, h: h, stack: []pdfContext{{}}, fonts: map[string]bool{}}
	c.Push()
	c.Translate(vg.Point{Y: h})
	c.Scale(1, -1)
	vg.Initialize(c)
	return c
}

func (c *pdfCanvas) context() *pdfContext { return &c.stack[len(c.stack)-1] }

// Size implements vg.Canvas.
func (c *pdfCanvas) Size() (w, h vg.Length) { return c.w, c.h }

// SetLineWidth implements vg.Canvas.
func (c *pdfCanvas) SetLineWidth(w vg.Length) {
	c.context().width = w
	c.doc.SetLineWidth(w.Points())
}

// SetLineDash implements vg.Canvas.
func (c *pdfCanvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	ds := make([]float64, len(dashes))
	for i, d := range dashes {
		ds[i] = d.Points()
	}
	c.doc.SetDashPattern(ds, offs.Points())
}

// SetColor implements vg.Canvas.
func (c *pdfCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	r, g, b, a := clr.RGBA()
	// RGBA is alpha-premultiplied; PDF's colours are not.
	un := func(v uint32) int {
		if a == 0 {
			return 0
		}
		return int(math.Round(float64(v) / float64(a) * 255))
	}
	c.doc.SetFillColor(un(r), un(g), un(b))
	c.doc.SetDrawColor(un(r), un(g), un(b))
	c.doc.SetTextColor(un(r), un(g), un(b))
	c.doc.SetAlpha(float64(a)/math.MaxUint16, "Normal")
}

// Rotate implements vg.Canvas.
func (c *pdfCanvas) Rotate(rad float64) { c.doc.TransformRotate(-rad*180/math.Pi, 0, 0) }

// Translate implements vg.Canvas.
func (c *pdfCanvas) Translate(pt vg.Point) { c.doc.TransformTranslate(pt.X.Points(), pt.Y.Points()) }

// Scale implements vg.Canvas.
func (c *pdfCanvas) Scale(x, y float64) { c.doc.TransformScale(x*100, y*100, 0, 0) }

// Push implements vg.Canvas.
func (c *pdfCanvas) Push() {
	c.stack = append(c.stack, *c.context())
	c.doc.TransformBegin()
}

// Pop implements vg.Canvas.
func (c *pdfCanvas) Pop() {
	c.doc.TransformEnd()
	c.stack = c.stack[:len(c.stack)-1]
}

// Stroke implements vg.Canvas.
func (c *pdfCanvas) Stroke(p vg.Path) {
	if c.context().width > 0 {
		c.path(p, "D")
	}
}

// Fill implements vg.Canvas.
func (c *pdfCanvas) Fill(p vg.Path) { c.path(p, "F") }

// path adds p to the page and strokes ("D") or fills ("F") it.
func (c *pdfCanvas) path(p vg.Path, style string) {
	var start vg.Point
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp:
			start = comp.Pos
			c.doc.MoveTo(comp.Pos.X.Points(), comp.Pos.Y.Points())
		case vg.LineComp:
			c.doc.LineTo(comp.Pos.X.Points(), comp.Pos.Y.Points())
		case vg.ArcComp:
			c.arc(comp, style)
		case vg.CurveComp:
			px, py := comp.Pos.X.Points(), comp.Pos.Y.Points()
			switch len(comp.Control) {
			case 1:
				c.doc.CurveTo(comp.Control[0].X.Points(), comp.Control[0].Y.Points(), px, py)
			case 2:
				c.doc.CurveBezierCubicTo(comp.Control[0].X.Points(), comp.Control[0].Y.Points(),
					comp.Control[1].X.Points(), comp.Control[1].Y.Points(), px, py)
			}
		case vg.CloseComp:
			c.doc.LineTo(start.X.Points(), start.Y.Points())
			c.doc.ClosePath()
		}
	}
	c.doc.DrawPath(style)
}

// arc adds the arc comp to the path, as vgpdf does: a line to its start, the arc, and a move to
// its end.
func (c *pdfCanvas) arc(comp vg.PathComp, style string) {
	at := func(a float64) (float64, float64) {
		return (comp.Pos.X + comp.Radius*vg.Length(math.Cos(a))).Points(), (comp.Pos.Y + comp.Radius*vg.Length(math.Sin(a))).Points()
	}
	c.doc.LineTo(at(comp.Start))
	r := comp.Radius.Points()
	const deg = 180 / math.Pi
	c.doc.Arc(comp.Pos.X.Points(), comp.Pos.Y.Points(), r, r, comp.Angle*deg, comp.Start*deg, (comp.Start+comp.Angle)*deg, style)
	c.doc.MoveTo(at(comp.Start + comp.Angle))
}

// FillString implements vg.Canvas: str with its baseline's left end at pt.
func (c *pdfCanvas) FillString(fnt font.Face, pt vg.Point, str string) {
	if fnt.Font.Size == 0 || str == "" {
		return
	}
	name := fnt.Name()
	if !c.fonts[name] {
		var src bytes.Buffer
		if _, err := fnt.Face.WriteSourceTo(nil, &src); err != nil {
			c.doc.SetError(fmt.Errorf("font %s: %w", name, err))
			return
		}
		c.doc.AddUTF8FontFromBytes(name, "", src.Bytes())
		c.fonts[name] = true
	}
	c.doc.SetFont(name, "", fnt.Font.Size.Points())
	c.Push()
	defer c.Pop()
	c.Translate(pt)
	// fpdf's text is upright in its top-down space: flip back, and write at the baseline.
	c.Scale(1, -1)
	c.doc.Text(0, 0, str)
}

// DrawImage implements vg.Canvas.
func (c *pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		c.doc.SetError(err)
		return
	}
	c.image++
	name := fmt.Sprintf("image_%03d.png", c.image)
	opts := fpdf.ImageOptions{ImageType: "png", ReadDpi: true}
	c.doc.RegisterImageOptionsReader(name, opts, &buf)
	sz := rect.Size()
	c.doc.ImageOptions(name, rect.Min.X.Points(), rect.Min.Y.Points(), sz.X.Points(), sz.Y.Points(), false, opts, 0, "")
}

// WriteTo implements vg.CanvasWriterTo; the canvas is closed after it.
func (c *pdfCanvas) WriteTo(w io.Writer) (int64, error) {
	c.Pop()
	c.doc.Close()
	var buf bytes.Buffer
	if err := c.doc.Output(&buf); err != nil {
		return 0, fmt.Errorf("pdf: %w", err)
	}
	return buf.WriteTo(w)
}
