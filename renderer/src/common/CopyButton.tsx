import { useState } from 'react';

/**
 * Copies `text` and says so for a moment. `label` names what is copied (shown, or, when compact,
 * given to screen readers while the button just says "Copy").
 */
export function CopyButton({ text, label, compact = false }: { text: string; label: string; compact?: boolean }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
    setTimeout(() => setCopied('idle'), 1_500);
  };

  const idleText = compact ? 'Copy' : label;
  return (
    <button type="button" className="copy" aria-label={compact ? label : undefined} title={label} onClick={() => void copy()}>
      {copied === 'copied' ? 'Copied' : copied === 'failed' ? 'Copy failed' : idleText}
    </button>
  );
}
