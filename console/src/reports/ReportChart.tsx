import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js'
import { useEffect, useRef } from 'react'
import { texts } from '../texts'

// Chart.js, with only the pieces the reports draw registered (the rest is left out of the bundle).
// It draws on a canvas and styles the canvas through the DOM, so the console's CSP (no inline
// styles) is kept.
Chart.register(
  BarController,
  BarElement,
  LineController,
  LineElement,
  PointElement,
  CategoryScale,
  LinearScale,
  Legend,
  Tooltip,
)

const POINT_STYLES = ['rectRot', 'circle', 'triangle'] as const

export interface Series {
  label: string
  values: (number | null)[]
  color: string
}

/** A bar chart (or lines, for days) of a few series over labels; `label` describes it to screen readers. */
export function ReportChart({
  kind,
  labels,
  series,
  label,
  unit,
}: {
  kind: 'bar' | 'line'
  labels: string[]
  series: Series[]
  label: string
  unit?: keyof typeof texts.reports.units
}) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const chart = useRef<Chart | null>(null)
  useEffect(() => {
    const element = canvas.current
    if (!element) return
    const config: ChartConfiguration<'bar' | 'line', (number | null)[], string> = {
      type: kind,
      data: {
        labels,
        // Each series its own hollow point shape, larger than the one before: where two lines run
        // together (equal values), every series still shows.
        datasets: series.map((s, index) => ({
          label: s.label,
          data: s.values,
          backgroundColor: s.color,
          borderColor: s.color,
          pointStyle: POINT_STYLES[index % POINT_STYLES.length],
          pointRadius: labels.length > 60 ? 0 : 2 + 1.5 * index,
          pointBackgroundColor: '#fff',
          borderWidth: 2,
          spanGaps: true,
        })),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'index', intersect: false },
        scales: {
          y: {
            beginAtZero: true,
            ticks: { precision: unit === 'cases' ? 0 : 1 },
            ...(unit ? { title: { display: true, text: texts.reports.units[unit] } } : {}),
          },
          // Room on both sides: the first and last points are not cut in half at the edges.
          x: { offset: true, ticks: { autoSkip: true, maxRotation: 0 } },
        },
        plugins: { legend: { position: 'bottom' } },
      },
    }
    chart.current?.destroy()
    chart.current = new Chart(element, config)
    return () => {
      chart.current?.destroy()
      chart.current = null
    }
  }, [kind, labels, series, unit])
  return (
    <div className="report-chart">
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  )
}
