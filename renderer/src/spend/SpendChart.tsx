import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { SpendDay } from '../../../proxy/contracts/spend.ts';
import { showInvisible } from '../common/format.ts';
import { type ChartRow, chartData } from './spendMath.ts';

/** Enough distinct hues for a legend; colours repeat after that, the tooltip still names each model. */
const SERIES_COLOURS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

/** Credits per bucket (a day, or an hour of today) stacked by model; `label` names it for screen readers. */
export function SpendChart({ days, label }: { days: SpendDay[]; label: string }) {
  const { rows, models } = chartData(days);
  if (models.length === 0) return <p className="muted">No priced requests in this range yet.</p>;
  return (
    <figure className="spend-chart" aria-label={label}>
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" />
          {/* Axis and legend text take the theme's text colour from styles.css (.spend-chart): Recharts
              paints legend names and tooltip rows in their series colour, too light to read on white. */}
          <XAxis dataKey="day" />
          <YAxis />
          <Tooltip
            contentStyle={{ background: 'var(--surface)', color: 'var(--text)' }}
            itemStyle={{ color: 'var(--text)' }}
            labelStyle={{ color: 'var(--text)' }}
          />
          <Legend
            formatter={(model: string) => (
              <span className="chart-legend-name" title={showInvisible(model)}>
                {showInvisible(model)}
              </span>
            )}
          />
          {models.map((model, index) => (
            <Bar
              key={model}
              // A function, not the model as a key path: a model's id may hold dots or be named `day`.
              dataKey={(row: ChartRow) => row.credits[model]}
              name={model}
              stackId="credits"
              fill={SERIES_COLOURS[index % SERIES_COLOURS.length]}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
