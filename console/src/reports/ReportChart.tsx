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
  unit?: string
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
        datasets: series.map((s) => ({
          label: s.label,
          data: s.values,
          backgroundColor: s.color,
          borderColor: s.color,
          pointRadius: labels.length > 60 ? 0 : 2,
          spanGaps: true,
        })),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'index', intersect: false },
        scales: {
          y: { beginAtZero: true, ...(unit ? { title: { display: true, text: unit } } : {}) },
          x: { ticks: { autoSkip: true, maxRotation: 0 } },
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
