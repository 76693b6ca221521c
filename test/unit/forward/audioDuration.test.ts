import { describe, expect, it } from 'vitest';
import { uploadAudioOf } from '../../../proxy/forward/audioDuration.ts';
import { readFormFields } from '../../../proxy/forward/multipartForm.ts';
import type { UploadAudio } from '../../../proxy/contracts/ports.ts';

const BOUNDARY = 'upload-boundary';

/** A canonical PCM WAV header (RIFF, `fmt `, optional chunks, `data`) before `dataBytes` of samples. */
function wav(options: { sampleRate: number; channels: number; bitsPerSample: number; dataBytes: number; listChunk?: boolean }): Buffer {
  const byteRate = (options.sampleRate * options.channels * options.bitsPerSample) / 8;
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0);
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8);
  fmt.writeUInt16LE(options.channels, 10);
  fmt.writeUInt32LE(options.sampleRate, 12);
  fmt.writeUInt32LE(byteRate, 16);
  fmt.writeUInt16LE((options.channels * options.bitsPerSample) / 8, 20);
  fmt.writeUInt16LE(options.bitsPerSample, 22);
  const list = options.listChunk ? Buffer.concat([Buffer.from('LIST'), Buffer.from([6, 0, 0, 0]), Buffer.from('INFOab')]) : Buffer.alloc(0);
  const data = Buffer.alloc(8);
  data.write('data', 0);
  data.writeUInt32LE(options.dataBytes, 4);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0);
  riff.writeUInt32LE(4 + fmt.length + list.length + data.length + options.dataBytes, 4);
  riff.write('WAVE', 8);
  return Buffer.concat([riff, fmt, list, data, Buffer.alloc(options.dataBytes, 7)]);
}

function form(file: Buffer, filename: string): Buffer[] {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n`;
  // Split across chunks, as a socket delivers it.
  const body = Buffer.concat([Buffer.from(head), file, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
  return [body.subarray(0, head.length + 10), body.subarray(head.length + 10)];
}

function boundOf(file: Buffer, filename: string): UploadAudio | null {
  const chunks = form(file, filename);
  const fields = readFormFields(chunks, `multipart/form-data; boundary=${BOUNDARY}`);
  if (fields === null) throw new Error('not a form');
  return uploadAudioOf(chunks, fields);
}

describe('uploadAudioOf', () => {
  it.each([
    { name: '16 kHz mono 16-bit, 3 s', file: wav({ sampleRate: 16_000, channels: 1, bitsPerSample: 16, dataBytes: 96_000 }), seconds: 3 },
    {
      name: '44.1 kHz stereo 16-bit, 0.5 s',
      file: wav({ sampleRate: 44_100, channels: 2, bitsPerSample: 16, dataBytes: 88_200 }),
      seconds: 0.5,
    },
    {
      name: 'a LIST chunk before the samples',
      file: wav({ sampleRate: 8_000, channels: 1, bitsPerSample: 8, dataBytes: 16_000, listChunk: true }),
      seconds: 2,
    },
  ])('reads a WAV file exactly from its header: $name', ({ file, seconds }) => {
    expect(boundOf(file, 'talk.wav')).toEqual({ seconds: expect.closeTo(seconds, 9), exact: true });
  });

  it('bounds a WAV whose header states more samples than it holds by the samples it holds', () => {
    const file = wav({ sampleRate: 16_000, channels: 1, bitsPerSample: 16, dataBytes: 32_000 });
    file.writeUInt32LE(0xffffffff, file.indexOf('data') + 4);
    expect(boundOf(file, 'live.wav')).toEqual({ seconds: expect.closeTo(1, 9), exact: true });
  });

  it('bounds compressed audio by its bytes at 8 kbit/s, an over-count for any common encoding', () => {
    // 64 kB of mp3 is 4 s at 128 kbit/s; at 8 kbit/s it would be 64 s.
    expect(boundOf(Buffer.alloc(64_000, 0xff), 'talk.mp3')).toEqual({ seconds: 64, exact: false });
  });

  it('knows nothing of a form without a file', () => {
    const chunks = [Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--${BOUNDARY}--\r\n`)];
    const fields = readFormFields(chunks, `multipart/form-data; boundary=${BOUNDARY}`);
    expect(fields && uploadAudioOf(chunks, fields)).toBeNull();
  });
});
